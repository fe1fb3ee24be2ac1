package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.TypedTool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the {@code sql} section (DESIGN §4) into {@link SqlDatabase} allowances: the password a defined
 * credential, a CA file that must exist now, every statement lexed by the kernel (so one with two
 * statements or unmatched placeholders fails at load). Stateless.
 */
public final class SqlSection implements KindSection<SqlDatabase> {
    static final String POINTER = "/sql/databases";

    @Override
    public Map<String, ApprovalChannel> approvalChannels(JsonNode entries) {
        Map<String, ApprovalChannel> out = new java.util.LinkedHashMap<>();
        entries.forEach(d -> d.path("statements").forEach(s -> Fields.confirmChannel(s.path("confirm")).ifPresent(channel ->
                out.put("sql.statement:" + d.get("name").textValue() + "." + s.get("name").textValue(), channel))));
        return out;
    }

    @Override
    public String pointer() {
        return POINTER;
    }

    @Override
    public Class<SqlDatabase> allowanceType() {
        return SqlDatabase.class;
    }

    @Override
    public String schemaFragment() {
        return "/dev/postern/app/config/sql.schema.json";
    }

    @Override
    public List<String> pathFields() {
        return List.of("/tls/caFile");
    }

    @Override
    public SqlDatabase entry(Reading reading, String at, JsonNode d) throws ConfigException {
        CredentialRef password = reading.credential(at + "/password", d.get("password"));
        SqlDatabase.Tls tls = SqlDatabase.Tls.verifyFull();
        if (d.has("tls")) {
            JsonNode t = d.get("tls");
            SqlDatabase.TlsMode mode = t.get("mode").textValue().equals("disable")
                    ? SqlDatabase.TlsMode.DISABLE : SqlDatabase.TlsMode.VERIFY_FULL;
            Optional<Path> ca = Optional.ofNullable(t.get("caFile")).map(reading::resolve);
            if (ca.isPresent() && (!Files.isRegularFile(ca.get()) || !Files.isReadable(ca.get()))) {
                throw reading.error(at + "/tls/caFile", "a readable CA file, but " + ca.get() + " is not one");
            }
            try {
                tls = new SqlDatabase.Tls(mode, ca);
            } catch (IllegalArgumentException e) {
                throw reading.error(at + "/tls", e.getMessage());
            }
        }
        List<SqlStatementSpec> statements = new ArrayList<>();
        JsonNode ss = d.get("statements");
        for (int i = 0; i < ss.size(); i++) {
            statements.add(statement(reading, at + "/statements/" + i, ss.get(i)));
        }
        try {
            return new SqlDatabase(
                    d.get("name").textValue(),
                    d.get("host").textValue(),
                    d.path("port").asInt(ConfigDefaults.SQL_PORT),
                    d.get("database").textValue(),
                    d.get("user").textValue(),
                    password,
                    tls,
                    d.path("allowPrivateAddresses").asBoolean(ConfigDefaults.SQL_ALLOW_PRIVATE_ADDRESSES),
                    Duration.ofMillis(d.path("timeoutMs").asLong(ConfigDefaults.SQL_TIMEOUT_MS)),
                    d.path("maxRows").asInt(ConfigDefaults.SQL_MAX_ROWS),
                    d.path("maxResponseBytes").asLong(ConfigDefaults.SQL_MAX_RESPONSE_BYTES),
                    statements,
                    Fields.rateLimit(d));
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }

    private static SqlStatementSpec statement(Reading reading, String at, JsonNode s) throws ConfigException {
        Map<String, ParamSpec> params = new LinkedHashMap<>();
        var it = s.path("params").fields();
        while (it.hasNext()) {
            var e = it.next();
            JsonNode p = e.getValue();
            String pat = at + "/params/" + e.getKey();
            try {
                switch (p.get("type").textValue()) {
                    case "integer" -> params.put(e.getKey(), new ParamSpec.IntegerParam(
                            p.has("minimum") ? p.get("minimum").longValue() : Long.MIN_VALUE,
                            p.has("maximum") ? p.get("maximum").longValue() : Long.MAX_VALUE));
                    case "number" -> params.put(e.getKey(), new ParamSpec.NumberParam(
                            Optional.ofNullable(p.get("minimum")).map(JsonNode::decimalValue),
                            Optional.ofNullable(p.get("maximum")).map(JsonNode::decimalValue)));
                    case "boolean" -> params.put(e.getKey(), new ParamSpec.BooleanParam());
                    default -> params.put(e.getKey(), Fields.stringParam(reading, pat, p));
                }
            } catch (IllegalArgumentException ex) {
                throw reading.error(pat, ex.getMessage());
            }
        }
        Optional<TypedTool> tool = Fields.typedTool(reading, at, s);
        try {
            return new SqlStatementSpec(s.get("name").textValue(), s.get("sql").textValue(), params,
                    s.path("readOnly").asBoolean(ConfigDefaults.SQL_READ_ONLY),
                    s.has("confirm") ? Fields.confirmed(s.get("confirm")) : ConfigDefaults.SQL_STATEMENT_CONFIRM, tool);
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }
}
