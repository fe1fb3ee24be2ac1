# Writes raw frames (Python bytes literals, one per line, # comments) to bin/postern mcp-stdio and checks stdout line by line.
import subprocess, sys, json, os, time
# usage: raw.py CONFIG  (reads frames as python bytes literals, one per line, from stdin spec file)
cfg = sys.argv[1]; frames = [eval(l) for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')]
p = subprocess.Popen([os.environ.get('POSTERN', 'bin/postern'),'mcp-stdio','--config',cfg], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
for f in frames:
    try:
        p.stdin.write(f); p.stdin.flush(); time.sleep(0.15)
    except BrokenPipeError:
        print("(gateway closed its stdin)"); break
try: p.stdin.close()
except BrokenPipeError: pass
out = p.stdout.read(); err = p.stderr.read(); rc = p.wait()
bad = 0
for line in out.split(b'\n'):
    if not line: continue
    try:
        j = json.loads(line); s = json.dumps(j)
        print(s[:260])
    except Exception as e:
        bad += 1; print('NOT JSON:', line[:200])
print('rc', rc, 'non-protocol lines', bad, 'stdout ends with newline', out.endswith(b'\n') or out == b'')
print('stderr:', err.decode('utf-8','replace')[-800:])
