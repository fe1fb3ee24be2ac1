package dev.postern.app;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Watches a config file for edits and runs {@code onSettled} once they have settled: the directory the
 * file is named in is watched (an editor's write in place, its rename of a temporary file into place, a
 * symlink swapped for another), and, when the name is a symlink, the directory of the file it points to
 * as well (an edit of the target in place). Any event in a watched directory starts a quiet period of
 * {@code debounce}; when no further event came in it, {@code onSettled} runs once, on this watcher's one
 * daemon thread, so handlers never run at once. What changed is the handler's to find out (it compares
 * the file's SHA-256), so an event about another file costs one read. Once at start too, for an edit
 * made before the watch began. Thread-safe; {@link #close} stops it.
 */
final class ConfigWatcher implements AutoCloseable {
    static final Duration DEBOUNCE = Duration.ofMillis(200);

    private final WatchService service;
    private final Thread thread;

    private ConfigWatcher(WatchService service, Thread thread) {
        this.service = service;
        this.thread = thread;
    }

    /**
     * Starts watching {@code file}; a directory that cannot be watched is said on {@code diagnostics},
     * and the gateway runs on with the config it has (edits then need a restart).
     */
    static ConfigWatcher start(Path file, Duration debounce, Runnable onSettled, PrintStream diagnostics) throws IOException {
        Objects.requireNonNull(onSettled, "onSettled");
        Objects.requireNonNull(debounce, "debounce");
        Path named = file.toAbsolutePath().normalize();
        Set<Path> dirs = new LinkedHashSet<>();
        dirs.add(named.getParent());
        if (Files.isSymbolicLink(named)) {
            try {
                dirs.add(named.toRealPath().getParent());
            } catch (IOException e) {
                diagnostics.println("postern: config " + named + " points to no file now; only its own directory is watched");
            }
        }
        WatchService service = FileSystems.getDefault().newWatchService();
        try {
            for (Path dir : dirs) {
                dir.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            }
        } catch (IOException | RuntimeException e) {
            service.close();
            throw e;
        }
        Thread t = new Thread(() -> loop(service, debounce, onSettled, diagnostics), "postern-config-watch");
        t.setDaemon(true);
        t.start();
        return new ConfigWatcher(service, t);
    }

    private static void loop(WatchService service, Duration debounce, Runnable onSettled, PrintStream diagnostics) {
        try {
            settled(onSettled, diagnostics);
            while (true) {
                drain(service.take());
                // Quiet period: every further event restarts it.
                WatchKey more;
                while ((more = service.poll(debounce.toMillis(), TimeUnit.MILLISECONDS)) != null) {
                    drain(more);
                }
                settled(onSettled, diagnostics);
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed: the session ended
        }
    }

    private static void drain(WatchKey key) {
        key.pollEvents();
        key.reset();
    }

    private static void settled(Runnable onSettled, PrintStream diagnostics) {
        try {
            onSettled.run();
        } catch (RuntimeException e) {
            diagnostics.println("postern: the config reload failed: " + e);
        }
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            // nothing is left to release
        }
        // Not interrupted: a closed service ends its wait, and a handler that is running finishes its row.
    }
}
