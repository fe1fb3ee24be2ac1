/**
 * Measurements, never assertions (DESIGN §8): JMH benchmarks of the hot path, one stage each
 * ({@link dev.postern.bench.FrameReaderBenchmark}, {@link dev.postern.bench.StrictJsonBenchmark},
 * {@link dev.postern.bench.McpServerBenchmark}, {@link dev.postern.bench.PolicyEngineBenchmark}), the
 * stdio load driver that measures a whole gateway process from outside
 * ({@link dev.postern.bench.StdioLoadDriver}), and the JVM floor it is compared with
 * ({@link dev.postern.bench.JvmFloor}). See bench/README.md for the commands.
 */
package dev.postern.bench;
