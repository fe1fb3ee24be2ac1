package dev.postern.app.config;

import dev.postern.policy.RegistrationPoint;
import java.util.List;
import java.util.Map;

/**
 * Every default of the configuration file, written once: {@link ConfigLoader} applies these, and a
 * test holds the schema's {@code default} values and README's configuration table to them
 * ({@code ConfigDefaultsTest}). Constants only.
 */
public final class ConfigDefaults {
    public static final int MAX_FRAME_BYTES = 1_048_576;
    public static final int MAX_IN_FLIGHT = 8;
    public static final int APPROVAL_TIMEOUT_SECONDS = 120;
    public static final String APPROVAL = "any";
    public static final long JOURNAL_ROTATE_BYTES = 64L * 1024 * 1024;
    public static final boolean JOURNAL_REDACT_ARGUMENTS = false;
    public static final long CREDENTIAL_COMMAND_TIMEOUT_MS = 10_000;
    public static final long CREDENTIAL_COMMAND_CACHE_SECONDS = 300;
    public static final long HTTP_TIMEOUT_MS = 10_000;
    public static final long HTTP_MAX_RESPONSE_BYTES = 1_048_576;
    public static final String HTTP_ON_OVERSIZE_RESPONSE = "truncate";
    public static final boolean HTTP_ALLOW_PRIVATE_ADDRESSES = false;
    public static final boolean HTTP_PROPAGATE_TRACE_CONTEXT = false;
    public static final String TRUST_STORE_TYPE = "PKCS12";
    public static final int SSH_PORT = 22;
    public static final long SSH_TIMEOUT_SECONDS = 30;
    public static final long SSH_MAX_OUTPUT_BYTES = 1_048_576;
    public static final int STRING_PARAM_MAX_LENGTH = 256;
    public static final boolean SSH_COMMAND_CONFIRM = false;
    public static final int SQL_PORT = 5432;
    public static final boolean SQL_ALLOW_PRIVATE_ADDRESSES = false;
    public static final long SQL_TIMEOUT_MS = 30_000;
    public static final int SQL_MAX_ROWS = 1000;
    public static final long SQL_MAX_RESPONSE_BYTES = 1_048_576;
    public static final boolean SQL_READ_ONLY = true;
    public static final boolean SQL_STATEMENT_CONFIRM = false;
    public static final long MCP_START_TIMEOUT_MS = 20_000;
    public static final long MCP_TIMEOUT_MS = 60_000;
    public static final long MCP_MAX_RESPONSE_BYTES = 1_048_576;
    public static final boolean MCP_TOOL_CONFIRM = false;
    public static final String TELEMETRY_SERVICE_NAME = "postern";
    public static final List<String> TELEMETRY_SIGNALS = List.of("traces", "metrics");
    public static final long TELEMETRY_TIMEOUT_MS = 5_000;
    public static final int TELEMETRY_MAX_QUEUE = 2048;

    private static final String CREDENTIAL_COMMAND = "/properties/credentials/additionalProperties/oneOf/2/properties/";
    private static final String HTTP_TARGET = "/properties/http/properties/targets/items/properties/";
    private static final String SSH_HOST = "/properties/ssh/properties/hosts/items/properties/";
    private static final String SQL_DATABASE = "/properties/sql/properties/databases/items/properties/";
    private static final String SQL_STATEMENT = SQL_DATABASE + "statements/items/properties/";
    private static final String TELEMETRY = "/properties/telemetry/properties/";
    private static final String MCP_SERVER = "/properties/mcp/properties/servers/items/properties/";

    /** Each default by the JSON pointer of its property in the config schema. */
    @RegistrationPoint("the kind's config defaults, by schema pointer")
    static final Map<String, Object> BY_SCHEMA_POINTER = Map.ofEntries(
            Map.entry("/properties/session/properties/maxFrameBytes", MAX_FRAME_BYTES),
            Map.entry("/properties/session/properties/maxInFlight", MAX_IN_FLIGHT),
            Map.entry("/properties/session/properties/approvalTimeoutSeconds", APPROVAL_TIMEOUT_SECONDS),
            Map.entry("/properties/session/properties/approval", APPROVAL),
            Map.entry("/properties/journal/properties/rotateBytes", JOURNAL_ROTATE_BYTES),
            Map.entry("/properties/journal/properties/redactArguments", JOURNAL_REDACT_ARGUMENTS),
            Map.entry(CREDENTIAL_COMMAND + "timeoutMs", CREDENTIAL_COMMAND_TIMEOUT_MS),
            Map.entry(CREDENTIAL_COMMAND + "cacheSeconds", CREDENTIAL_COMMAND_CACHE_SECONDS),
            Map.entry(HTTP_TARGET + "timeoutMs", HTTP_TIMEOUT_MS),
            Map.entry(HTTP_TARGET + "maxResponseBytes", HTTP_MAX_RESPONSE_BYTES),
            Map.entry(HTTP_TARGET + "onOversizeResponse", HTTP_ON_OVERSIZE_RESPONSE),
            Map.entry(HTTP_TARGET + "allowPrivateAddresses", HTTP_ALLOW_PRIVATE_ADDRESSES),
            Map.entry(HTTP_TARGET + "propagateTraceContext", HTTP_PROPAGATE_TRACE_CONTEXT),
            Map.entry(HTTP_TARGET + "trustStore/properties/type", TRUST_STORE_TYPE),
            Map.entry(SSH_HOST + "port", SSH_PORT),
            Map.entry(SSH_HOST + "timeoutSeconds", SSH_TIMEOUT_SECONDS),
            Map.entry(SSH_HOST + "maxOutputBytes", SSH_MAX_OUTPUT_BYTES),
            Map.entry(SSH_HOST + "commands/items/properties/params/additionalProperties/oneOf/0/properties/maxLength",
                    STRING_PARAM_MAX_LENGTH),
            Map.entry(SSH_HOST + "commands/items/properties/confirm", SSH_COMMAND_CONFIRM),
            Map.entry(SQL_DATABASE + "port", SQL_PORT),
            Map.entry(SQL_DATABASE + "allowPrivateAddresses", SQL_ALLOW_PRIVATE_ADDRESSES),
            Map.entry(SQL_DATABASE + "timeoutMs", SQL_TIMEOUT_MS),
            Map.entry(SQL_DATABASE + "maxRows", SQL_MAX_ROWS),
            Map.entry(SQL_DATABASE + "maxResponseBytes", SQL_MAX_RESPONSE_BYTES),
            Map.entry(SQL_STATEMENT + "readOnly", SQL_READ_ONLY),
            Map.entry(SQL_STATEMENT + "confirm", SQL_STATEMENT_CONFIRM),
            Map.entry(MCP_SERVER + "startTimeoutMs", MCP_START_TIMEOUT_MS),
            Map.entry(MCP_SERVER + "timeoutMs", MCP_TIMEOUT_MS),
            Map.entry(MCP_SERVER + "maxResponseBytes", MCP_MAX_RESPONSE_BYTES),
            Map.entry(MCP_SERVER + "tools/items/properties/confirm", MCP_TOOL_CONFIRM),
            Map.entry(TELEMETRY + "serviceName", TELEMETRY_SERVICE_NAME),
            Map.entry(TELEMETRY + "signals", TELEMETRY_SIGNALS),
            Map.entry(TELEMETRY + "timeoutMs", TELEMETRY_TIMEOUT_MS),
            Map.entry(TELEMETRY + "maxQueue", TELEMETRY_MAX_QUEUE),
            Map.entry(SQL_STATEMENT + "params/additionalProperties/oneOf/0/properties/maxLength", STRING_PARAM_MAX_LENGTH));

    private ConfigDefaults() {
    }
}
