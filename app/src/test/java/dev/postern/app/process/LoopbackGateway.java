package dev.postern.app.process;

import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The gateway config the process tests share: HTTP target {@code loopback} (GET under {@code /v1}
 * at a {@link FakeHttpService}) and SSH host {@code box} (a {@link FakeSshServer}, its key pinned in
 * a known_hosts file) with one command, {@code greet} = {@code echo {name}}, name {@code [a-z]+} of
 * at most 16 characters.
 */
final class LoopbackGateway {
    private LoopbackGateway() {
    }

    /** An SSH login for {@code ssh}: an owner-only client key and a known_hosts file, both in {@code dir}. */
    record SshTrust(Path keyFile, Path knownHosts) {
        static SshTrust create(FakeSshServer ssh, Path dir) throws IOException {
            Path key = ssh.generateClientKey(dir).privateKeyFile();
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            return new SshTrust(key, ssh.writeKnownHosts(dir.resolve("known_hosts")));
        }
    }

    /** Writes {@code dir/postern.json} (its journal in {@code dir/journal}) and returns its path. */
    static Path writeConfig(Path dir, FakeHttpService http, FakeSshServer ssh, SshTrust trust) throws IOException {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                {
                  "journal": { "directory": "journal" },
                  "credentials": { "deploy-key": { "file": "%s" } },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"],
                      "allowPrivateAddresses": true, "timeoutMs": 5000 } ] },
                  "ssh": { "hosts": [
                    { "name": "box", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "deploy-key",
                      "knownHosts": "%s", "timeoutSeconds": 10,
                      "commands": [
                        { "name": "greet", "argv": ["echo", "{name}"],
                          "params": { "name": { "type": "string", "pattern": "[a-z]+", "maxLength": 16 } } } ] } ] }
                }
                """.formatted(trust.keyFile(), http.baseUri(), ssh.port(), trust.knownHosts()));
        return config;
    }
}
