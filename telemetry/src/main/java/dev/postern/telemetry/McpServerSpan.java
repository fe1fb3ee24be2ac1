package dev.postern.telemetry;

import static dev.postern.telemetry.Conventions.*;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.port.Stage;
import dev.postern.policy.port.Telemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.util.Optional;

/**
 * One agent request as an MCP SERVER span ({@code {mcp.method.name} {gen_ai.tool.name}}), with the
 * metrics recorded when it is answered. Only names, codes and numbers are set; never an argument, a
 * body, a row or an output. Its methods are called one after the other, possibly from different
 * threads (the reader, then a worker); they synchronize on the span.
 */
final class McpServerSpan implements Telemetry.Span {
    private final Span span;
    private final Instruments instruments;
    private final String method;
    private final long startNanos;
    private String tool;
    private String kind;
    private String target;
    private long executorStart;
    private boolean ended;

    private final ClientSpans calls;

    McpServerSpan(Span span, Instruments instruments, String method, long startNanos, io.opentelemetry.api.trace.Tracer tracer) {
        this.calls = new ClientSpans(tracer, span);
        this.span = span;
        this.instruments = instruments;
        this.method = method;
        this.startNanos = startNanos;
    }

    @Override
    public synchronized void tool(String name) {
        tool = name;
        span.updateName(method + " " + name);
        span.setAttribute(GEN_AI_TOOL_NAME, name);
        span.setAttribute(GEN_AI_OPERATION_NAME, EXECUTE_TOOL);
    }

    @Override
    public synchronized void kind(String kind) {
        this.kind = kind;
        span.setAttribute(POSTERN_KIND, kind);
    }

    @Override
    public synchronized void rejected(Stage stage, String reason, Optional<String> rule) {
        String decision = stage == Stage.POLICY ? "deny" : "reject";
        span.setAttribute(POSTERN_DECISION, decision);
        span.setAttribute(POSTERN_STAGE, stage.wireName());
        span.setAttribute(POSTERN_REASON, reason);
        rule.ifPresent(r -> span.setAttribute(POSTERN_RULE, r));
        AttributesBuilder a = Attributes.builder().put(POSTERN_DECISION, decision).put(POSTERN_STAGE, stage.wireName())
                .put(POSTERN_REASON, reason);
        rule.ifPresent(r -> a.put(POSTERN_RULE, r));
        instruments.decisions().add(1, a.build());
    }

    @Override
    public synchronized void approval(String result) {
        span.setAttribute(POSTERN_APPROVAL, result);
        instruments.approvals().add(1, Attributes.of(POSTERN_APPROVAL, result));
    }

    @Override
    public synchronized void permitted(AuthorizedAction permit, long intentSeq) {
        target = permit.allowance().name();
        span.setAttribute(POSTERN_DECISION, "permit");
        span.setAttribute(POSTERN_STAGE, Stage.POLICY.wireName());
        span.setAttribute(POSTERN_RULE, permit.rule());
        span.setAttribute(POSTERN_TARGET, target);
        span.setAttribute(POSTERN_INTENT_SEQ, intentSeq);
        instruments.decisions().add(1, Attributes.of(POSTERN_DECISION, "permit", POSTERN_STAGE, Stage.POLICY.wireName(),
                POSTERN_RULE, permit.rule()));
        executorStart = System.nanoTime();
    }

    @Override
    public synchronized void executed(Optional<String> failureCode) {
        String outcome = failureCode.orElse("ok");
        span.setAttribute(POSTERN_OUTCOME, outcome);
        if (executorStart != 0) {
            AttributesBuilder a = Attributes.builder().put(POSTERN_OUTCOME, outcome);
            if (kind != null) {
                a.put(POSTERN_KIND, kind);
            }
            if (target != null) {
                a.put(POSTERN_TARGET, target);
            }
            instruments.executorDuration().record((System.nanoTime() - executorStart) / 1e9, a.build());
        }
    }

    @Override
    public dev.postern.policy.port.CallTrace calls() {
        return calls;
    }

    @Override
    public synchronized void answered(Telemetry.Answer answer) {
        if (ended) {
            return;
        }
        ended = true;
        answer.protocolVersion().ifPresent(v -> span.setAttribute(MCP_PROTOCOL_VERSION, v));
        Optional<String> errorType = Optional.empty();
        if (answer.errorCode().isPresent()) {
            String code = Integer.toString(answer.errorCode().getAsInt());
            span.setAttribute(RPC_RESPONSE_STATUS_CODE, code);
            errorType = Optional.of(code);
        } else if (answer.toolError()) {
            errorType = Optional.of(TOOL_ERROR);
        }
        // No status description: a JSON-RPC error's message may quote what the agent sent.
        errorType.ifPresent(e -> {
            span.setAttribute(ERROR_TYPE, e);
            span.setStatus(StatusCode.ERROR);
        });
        span.end();
        AttributesBuilder a = Attributes.builder().put(MCP_METHOD_NAME, method).put(NETWORK_TRANSPORT, PIPE);
        if (tool != null) {
            a.put(GEN_AI_TOOL_NAME, tool).put(GEN_AI_OPERATION_NAME, EXECUTE_TOOL);
        }
        answer.protocolVersion().ifPresent(v -> a.put(MCP_PROTOCOL_VERSION, v));
        answer.errorCode().ifPresent(c -> a.put(RPC_RESPONSE_STATUS_CODE, Integer.toString(c)));
        errorType.ifPresent(e -> a.put(ERROR_TYPE, e));
        instruments.serverDuration().record((System.nanoTime() - startNanos) / 1e9, a.build());
    }
}
