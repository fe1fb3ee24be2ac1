// Spawns the launcher the way Node clients do (stdout is a socket, not a pipe), with verbose JVM
// logging switched on, sends one ping and prints the raw stdout bytes as base64 on its own stdout
// line for the Java test to check. Usage: node socket-stdout.js LAUNCHER CONFIG
const { spawn } = require('child_process');
const p = spawn(process.argv[2], ['mcp-stdio', '--config', process.argv[3]], {
  stdio: ['pipe', 'pipe', 'pipe'],
  env: { ...process.env, JAVA_TOOL_OPTIONS: '-verbose:class -Xlog:gc' },
});
let out = Buffer.alloc(0);
p.stdout.on('data', (d) => { out = Buffer.concat([out, d]); });
p.stderr.on('data', () => {});
p.on('close', (code) => {
  process.stdout.write(JSON.stringify({ exit: code, stdout: out.toString('base64') }) + '\n');
});
p.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
p.stdin.end();
