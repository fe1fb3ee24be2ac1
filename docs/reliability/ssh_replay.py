"""Issue 17 item 10 replayed through bin/postern against a real OpenSSH sshd on loopback.
Usage (as root): python3 docs/reliability/ssh_replay.py ROOT USER  (USER root, or a user it creates and removes)."""
import os, subprocess, sys, time, json, socket, random, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replay as R
base = tempfile.mkdtemp(prefix="ssh-replay-")
os.chmod(base, 0o755)
def sh(*a): return subprocess.run(a, check=True, capture_output=True, text=True)
for k in ("host_key", "client_key"):
    p = os.path.join(base, k)
    if not os.path.exists(p): sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", p)
os.chmod(os.path.join(base, "client_key"), 0o600)
user = sys.argv[2]
created = False
if user != "root":
    if subprocess.run(["id", user], capture_output=True).returncode != 0:
        sh("useradd", "-m", "-s", "/bin/sh", user); sh("usermod", "-p", "*", user); created = True
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
open(os.path.join(base, "authorized_keys"), "w").write(open(os.path.join(base, "client_key.pub")).read())
os.chmod(os.path.join(base, "authorized_keys"), 0o644)
cfg = "\n".join(["ListenAddress 127.0.0.1", "Port %d" % port, "HostKey %s/host_key" % base, "AuthorizedKeysFile %s/authorized_keys" % base,
    "PidFile %s/sshd.pid" % base, "UsePAM no", "StrictModes no", "PubkeyAuthentication yes", "PasswordAuthentication no",
    "KbdInteractiveAuthentication no", "AllowUsers " + user, "PermitRootLogin prohibit-password", "LogLevel VERBOSE", ""])
open(os.path.join(base, "sshd_config"), "w").write(cfg)
os.makedirs("/run/sshd", exist_ok=True)
log = open(os.path.join(base, "sshd-%s.log" % user), "w")
sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", os.path.join(base, "sshd_config")], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
time.sleep(1.5)
hostpub = open(os.path.join(base, "host_key.pub")).read().split()
open(os.path.join(base, "known_hosts"), "w").write("[127.0.0.1]:%d %s %s\n" % (port, hostpub[0], hostpub[1]))
secs = "30.%d" % random.randint(100000, 999999)
c = R.cfg(base, {"journal": {"directory": "journal"}, "credentials": {"key": {"file": os.path.join(base, "client_key")}},
    "ssh": {"hosts": [{"name": "lo", "address": "127.0.0.1", "port": port, "user": user, "identity": "key",
        "knownHosts": os.path.join(base, "known_hosts"), "timeoutSeconds": 2,
        "commands": [{"name": "sleep", "argv": ["sleep", secs]}]}]}})
g = R.GW(c); g.handshake()
t0 = time.time()
g.send(R.call(7, "ssh_exec", {"host": "lo", "command": "sleep"}))
ans = g.read(30); dt = time.time() - t0
print("  user %s: answer after %.2f s (deadline 2 s): %s" % (user, dt, R.short(ans, 600)))
time.sleep(1)
ps = subprocess.run(["pgrep", "-af", "sleep " + secs], capture_output=True, text=True).stdout.strip()
print("  remote 'sleep %s' still running 1 s later: %s" % (secs, bool(ps)))
subprocess.run(["pkill", "-f", "sleep " + secs])
print("  exit", g.close()[0])
sshd.terminate(); sshd.wait()
if created:
    subprocess.run(["userdel", "-r", user], capture_output=True)
