package dev.postern.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whether preallocating journal space would make a journal row's flush cheaper (issue 15): times one
 * 256-byte row written and {@code fdatasync}ed ({@code FileChannel.force(false)}, as the journal
 * does) in four ways, on the file system of the directory given:
 * <ol>
 *   <li>{@code append}: at the end of the file, which grows (the journal today);</li>
 *   <li>{@code fallocate-keep-size}: at the end, into space {@code fallocate -n} reserved beyond it, so
 *       no block is allocated but the size still changes;</li>
 *   <li>{@code fallocate}: inside space {@code fallocate} reserved and counted in the size (unwritten
 *       extents), so the size does not change but each block changes from unwritten to written;</li>
 *   <li>{@code overwrite}: inside space already written with zeros: no metadata changes at all, the
 *       floor of a flush on that disk.</li>
 * </ol>
 * Interleaved in rounds so that the disk's noise hits every way alike; prints the median and 99th
 * percentile of each on stderr. Needs the {@code fallocate} tool (util-linux). Usage:
 * {@code java -cp bench/target/benchmarks.jar dev.postern.bench.FlushProbe DIR [ROWS]}.
 */
public final class FlushProbe {
    private static final int ROW = 256;

    private FlushProbe() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream err = System.err;
        if (args.length < 1) {
            err.println("usage: FlushProbe DIR [ROWS]");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        long span = (long) ROW * rows;
        List<String> ways = List.of("append", "fallocate-keep-size", "fallocate", "overwrite");
        FileChannel[] files = new FileChannel[ways.size()];
        for (int w = 0; w < ways.size(); w++) {
            Path f = dir.resolve("flush-probe-" + ways.get(w));
            Files.deleteIfExists(f);
            Files.createFile(f);
            switch (ways.get(w)) {
                case "fallocate-keep-size" -> run("fallocate", "-n", "-l", Long.toString(span), f.toString());
                case "fallocate" -> run("fallocate", "-l", Long.toString(span), f.toString());
                case "overwrite" -> Files.write(f, new byte[(int) span]);
                default -> { }
            }
            files[w] = FileChannel.open(f, StandardOpenOption.WRITE);
            files[w].force(true);
        }
        byte[] row = new byte[ROW];
        Arrays.fill(row, (byte) 'x');
        row[ROW - 1] = '\n';
        long[][] nanos = new long[ways.size()][rows];
        for (int i = 0; i < rows; i++) {
            for (int w = 0; w < ways.size(); w++) {
                ByteBuffer b = ByteBuffer.wrap(row);
                long t0 = System.nanoTime();
                while (b.hasRemaining()) {
                    files[w].write(b, (long) i * ROW + b.position());
                }
                files[w].force(false);
                nanos[w][i] = System.nanoTime() - t0;
            }
        }
        err.printf(Locale.ROOT, "flush probe: %d rows of %d bytes, each written and fdatasynced, interleaved; %s (%s)%n",
                rows, ROW, dir, Files.getFileStore(dir).type());
        for (int w = 0; w < ways.size(); w++) {
            long[] s = nanos[w].clone();
            Arrays.sort(s);
            err.printf(Locale.ROOT, "  %-20s p50 %7.1f µs   p99 %8.1f µs%n", ways.get(w), s[s.length / 2] / 1e3, s[(int) (s.length * 0.99)] / 1e3);
            files[w].close();
            Files.deleteIfExists(dir.resolve("flush-probe-" + ways.get(w)));
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.trim());
        }
    }
}
