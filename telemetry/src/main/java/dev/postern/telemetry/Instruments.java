package dev.postern.telemetry;

import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;

/** The metric instruments one gateway records into (no-ops when metrics are not exported). Immutable. */
record Instruments(DoubleHistogram serverDuration, LongCounter decisions, LongCounter approvals, DoubleHistogram executorDuration) {

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
                        .setExplicitBucketBoundariesAdvice(Conventions.DURATION_BUCKETS).build());
    }
}
