package dev.postern.telemetry;

import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;

/** The metric instruments one gateway records into (no-ops when metrics are not exported). Immutable. */
record Instruments(DoubleHistogram serverDuration, LongCounter decisions, LongCounter approvals, DoubleHistogram executorDuration,
                   DoubleHistogram journalFlushDuration, LongCounter upstreamDropped) {

    static Instruments on(Meter meter) {
        return new Instruments(
                meter.histogramBuilder(Conventions.SERVER_DURATION).setUnit("s")
                        .setDescription("The duration of the MCP request or notification as observed on the receiver from the time it was received until the result or ack is sent.")
                        .setExplicitBucketBoundariesAdvice(Conventions.DURATION_BUCKETS).build(),
                meter.counterBuilder(Conventions.DECISIONS).setUnit("{decision}")
                        .setDescription("Decisions on the agent's requests, by decision, stage, reason and rule.").build(),
                meter.counterBuilder(Conventions.APPROVALS).setUnit("{approval}")
                        .setDescription("Human approvals asked for, by outcome.").build(),
                meter.histogramBuilder(Conventions.EXECUTOR_DURATION).setUnit("s")
                        .setDescription("How long an executor took on a permitted action, by kind, target and outcome.")
                        .setExplicitBucketBoundariesAdvice(Conventions.DURATION_BUCKETS).build(),
                meter.histogramBuilder(Conventions.JOURNAL_FLUSH_DURATION).setUnit("s")
                        .setDescription("How long one journal write took (a batch of rows, forced to disk or not), by journal and whether it was forced.")
                        .setExplicitBucketBoundariesAdvice(Conventions.FLUSH_BUCKETS).build(),
                meter.counterBuilder(Conventions.UPSTREAM_DROPPED).setUnit("{line}")
                        .setDescription("Lines or messages from an upstream MCP server that the gateway would not pass on, by server and reason.").build());
    }
}
