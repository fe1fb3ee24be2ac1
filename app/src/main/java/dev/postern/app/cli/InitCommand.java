package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code postern init [--kinds http,ssh,sql,mcp] [--out FILE]}: writes a starting config for the kinds
 * asked for, and beside it {@code FILE.md}, what each part means and what to change first. JSON has no
 * comments and the schema allows no comment members, so the explanation is that file, not the config.
 * Both files are created new (an existing one is never overwritten), and the config is loaded back as
 * {@code check-config} loads it before the command says it is done.
 */
final class InitCommand implements Command {
    /** Each kind's member of the config, its credentials and its notes, in registration order. */
    private static final Map<String, Part> PARTS = new LinkedHashMap<>();

    private record Part(String credentials, String member, String notes) {
    }

    static {
        PARTS.put("http", new Part("", """
                  "http": {
                    "targets": [
                      { "name": "example-api", "baseUrl": "https://api.example.com", "methods": ["GET"],
                        "pathPrefixes": ["/v1/"], "timeoutMs": 10000, "maxResponseBytes": 1048576,
                        "rateLimit": { "calls": 60, "perSeconds": 60 } }
                    ]
                  }""", """
                ## http: one target, `example-api`

                The agent may send `GET` requests under `https://api.example.com/v1/` and nothing else. Put your
                API's origin in `baseUrl`, list only the methods and path prefixes it needs, and add
                `"auth": { "credential": "NAME", "scheme": "bearer" }` with a `credentials` entry if it needs a
                token. README: "Configuration" (the `http.targets[]` rows) and "Typed tools" (`"tool"`).
                """));
        PARTS.put("ssh", new Part("""
                    "ssh-password": { "env": "POSTERN_SSH_PASSWORD" }""", """
                  "ssh": {
                    "hosts": [
                      { "name": "example-host", "address": "host.example.com", "port": 22, "user": "agent",
                        "password": "ssh-password",
                        "hostKeyFingerprint": "SHA256:REPLACE+WITH+THE+FINGERPRINT+TRUSTHOST+SAYS",
                        "commands": [ { "name": "uptime", "argv": ["uptime"] } ] }
                    ]
                  }""", """
                ## ssh: one host, `example-host`, one command

                The agent may run exactly `uptime` there. The `hostKeyFingerprint` is a placeholder that
                matches no key, so nothing connects until you pin the real one: run
                `postern trust-host --config FILE example-host` and paste the fingerprint it prints (or point
                `knownHosts` at a known_hosts file). The password is read from the environment variable
                `POSTERN_SSH_PASSWORD` (`ssh-password` under `credentials`); a key is `"identity": "NAME"`
                instead. README: "Configuration" (the `ssh.hosts[]` rows).
                """));
        PARTS.put("sql", new Part("""
                    "db-password": { "env": "POSTERN_DB_PASSWORD" }""", """
                  "sql": {
                    "databases": [
                      { "name": "example-db", "host": "db.example.com", "port": 5432, "database": "app",
                        "user": "agent_ro", "password": "db-password", "tls": { "mode": "verify-full" },
                        "statements": [ { "name": "server-version", "sql": "SELECT version()" } ] }
                    ]
                  }""", """
                ## sql: one PostgreSQL database, `example-db`, one statement

                The agent may run only the statements you write here, by name, with typed params
                (`:name` in the SQL, `params` beside it); statements are read-only unless `"readOnly": false`.
                The password is read from `POSTERN_DB_PASSWORD`. `postern check-config --deep --connect`
                logs in and has the server check every statement without running it. README: "Configuration"
                (the `sql.databases[]` rows).
                """));
        PARTS.put("mcp", new Part("", """
                  "mcp": {
                    "servers": [
                      { "name": "example-server", "command": ["/usr/bin/node", "/opt/mcp/server/index.js"],
                        "tools": [] }
                    ]
                  }""", """
                ## mcp: one upstream MCP server, `example-server`, no tool allowed yet

                Put your server's argv in `command` (run without a shell). Its `tools` list is empty, so
                the agent reaches none of them: run `postern upstream pin --config FILE example-server`,
                read each definition, and paste the `tools` entries you allow. README: "Put your existing MCP
                servers behind Postern".
                """));
    }

    @Override
    public String name() {
        return "init";
    }

    @Override
    public String summary() {
        return "init [--kinds K,..] [--out FILE]  write a starting config (FILE, default postern.json) and FILE.md";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern init [--kinds http,ssh,sql,mcp] [--out FILE]",
                "",
                "Writes a starting config for the kinds asked for (default: http) to FILE (default",
                "postern.json), with a journal directory beside it, and FILE.md, what each part means and what",
                "to change first (JSON has no comments). Refuses to overwrite either file. The config passes",
                "check-config as written; its SSH host key and upstream tools are placeholders to replace.",
                "Exit statuses: 0 written, 1 usage or a file already there, 5 the files could not be written.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        Path out;
        Set<String> kinds = new LinkedHashSet<>();
        try {
            Options o = Options.parse(args, Set.of("--kinds", "--out"));
            if (!o.positional().isEmpty()) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(0));
            }
            out = Path.of(o.get("--out").orElse("postern.json"));
            for (String k : o.get("--kinds").orElse("http").split(",", -1)) {
                if (!PARTS.containsKey(k)) {
                    throw new Options.UsageException("unknown kind '" + k + "' (kinds: " + String.join(", ", PARTS.keySet()) + ")");
                }
                kinds.add(k);
            }
        } catch (Options.UsageException e) {
            io.stderr().println("postern init: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        Path notes = out.resolveSibling(out.getFileName() + ".md");
        for (Path p : List.of(out, notes)) {
            if (Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                io.stderr().println("postern init: " + p + " already exists; nothing written (choose another --out, or move it away)");
                return ExitStatus.USAGE;
            }
        }
        try {
            Files.writeString(out, config(kinds), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.writeString(notes, notes(kinds, out), StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            io.stderr().println("postern init: " + e.getFile() + " already exists; nothing more written");
            return ExitStatus.USAGE;
        } catch (IOException e) {
            io.stderr().println("postern init: cannot write " + out + ": " + e.getMessage());
            return ExitStatus.STARTUP_FAILED;
        }
        try {
            Gateway.configLoader().load(out);
        } catch (ConfigException e) {
            // A template that does not load is Postern's bug; say so rather than leave a config that looks fine.
            io.stderr().println("postern init: the config written does not pass check-config (a bug): " + e.getMessage());
            return ExitStatus.CONFIG_ERROR;
        }
        io.report().println("wrote " + out + " (" + String.join(", ", kinds) + ") and " + notes + "; next: postern check-config --config "
                + out);
        return ExitStatus.OK;
    }

    /** The config for {@code kinds}: the journal beside the file, their credentials, their members, in registration order. */
    static String config(Set<String> kinds) {
        List<String> credentials = new ArrayList<>();
        List<String> members = new ArrayList<>();
        for (Map.Entry<String, Part> e : PARTS.entrySet()) {
            if (kinds.contains(e.getKey())) {
                if (!e.getValue().credentials().isEmpty()) {
                    credentials.add(e.getValue().credentials());
                }
                members.add(e.getValue().member());
            }
        }
        StringBuilder b = new StringBuilder("{\n  \"journal\": { \"directory\": \"postern-journal\" }");
        if (!credentials.isEmpty()) {
            b.append(",\n  \"credentials\": {\n").append(String.join(",\n", credentials)).append("\n  }");
        }
        for (String m : members) {
            b.append(",\n").append(m);
        }
        return b.append("\n}\n").toString();
    }

    private static String notes(Set<String> kinds, Path out) {
        StringBuilder b = new StringBuilder("# " + out.getFileName() + ": what it says\n\n"
                + "Written by `postern init`. JSON has no comments, so this file explains the config beside it; it is\n"
                + "not read by Postern. Everything not listed is denied. Check it with `postern check-config --config "
                + out.getFileName() + "`\n(`--deep`, `--connect` and `--lint` check more), and see README \"Put it behind your MCP client\".\n\n"
                + "## journal\n\nEvery call and denial is journaled in `postern-journal/` beside the config (created 0700);\n"
                + "`postern audit show --config " + out.getFileName() + "` reads it. README: \"Journals\".\n\n");
        for (Map.Entry<String, Part> e : PARTS.entrySet()) {
            if (kinds.contains(e.getKey())) {
                b.append(e.getValue().notes().replace("FILE", out.getFileName().toString())).append('\n');
            }
        }
        return b.toString();
    }
}
