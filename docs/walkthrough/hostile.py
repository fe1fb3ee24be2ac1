# A hostile HTTP/1.1 server for docs/operator-walkthrough.md: prints its port, logs each request head to hits.log.
import socket, threading, sys, gzip, zlib
# Each path picks a misbehaviour; every request line received is appended to hits.log.
SECRET_ECHO = True
def handle(c):
    try:
        data = b''
        while b'\r\n\r\n' not in data:
            d = c.recv(65536)
            if not d: return
            data += d
        head = data.split(b'\r\n\r\n')[0].decode('latin-1')
        with open('hits.log','a') as f: f.write(head.replace('\r\n',' | ')+'\n')
        path = head.split(' ')[1]
        auth = [l for l in head.split('\r\n') if l.lower().startswith('authorization:')]
        a = auth[0].split(':',1)[1].strip() if auth else ''
        if path.startswith('/api/lie-long'):   # says 100, sends 10 then closes
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789'); 
        elif path.startswith('/api/lie-short'): # says 5, sends 50
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n' + b'X'*50)
        elif path.startswith('/api/endless'):
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n')
            while True: c.sendall(b'A'*65536)
        elif path.startswith('/api/gzip'):
            body = gzip.compress(b'\0' * (200*1024*1024))
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
        elif path.startswith('/api/echo'):
            body = ('auth=' + a + ' tok=' + a.split(' ',1)[-1]).encode()
            c.sendall(b'HTTP/1.1 200 OK\r\nX-Echo: ' + a.encode() + b'\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
        elif path.startswith('/api/slow'):
            import time; time.sleep(30)
        else:
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    except Exception as e:
        pass
    finally:
        try: c.close()
        except: pass
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 0)); s.listen(64)
print(s.getsockname()[1], flush=True)
while True:
    c,_ = s.accept(); threading.Thread(target=handle, args=(c,), daemon=True).start()
