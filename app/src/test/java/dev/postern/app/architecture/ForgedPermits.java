package dev.postern.app.architecture;

import com.tngtech.archunit.core.importer.Location;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Compiles, at test time, classes that construct permits from outside the policy: javac refuses to compile
 * such a call against the real, package-private constructors, so the forgers are compiled against public
 * stand-ins of the permit classes and only the forgers' class files are imported. Their bytecode is what a
 * forgery against the real classes would be; ArchUnit resolves the permit types from the real policy jar.
 * Not thread-safe; each call compiles into a fresh directory.
 */
final class ForgedPermits {

    static final String FORGER = "dev.postern.archfixtures.forged.PermitForger";
    static final String REFERENCER = "dev.postern.archfixtures.forged.PermitConstructorReference";
    static final String SUBCLASS = "dev.postern.archfixtures.forged.ForgedPermit";

    private static final Map<String, String> SOURCES = Map.of(
            "dev/postern/policy/AuthorizedAction.java", """
                    package dev.postern.policy;
                    public abstract class AuthorizedAction {
                        public AuthorizedAction(String rule) {
                        }
                    }
                    """,
            "dev/postern/policy/AuthorizedHttpRequest.java", """
                    package dev.postern.policy;
                    public final class AuthorizedHttpRequest extends AuthorizedAction {
                        public AuthorizedHttpRequest(String rule) {
                            super(rule);
                        }
                    }
                    """,
            "dev/postern/policy/AuthorizedSshCommand.java", """
                    package dev.postern.policy;
                    public final class AuthorizedSshCommand extends AuthorizedAction {
                        public AuthorizedSshCommand(String rule) {
                            super(rule);
                        }
                    }
                    """,
            "dev/postern/archfixtures/forged/PermitForger.java", """
                    package dev.postern.archfixtures.forged;
                    public final class PermitForger {
                        static Object forge() {
                            return new dev.postern.policy.AuthorizedHttpRequest("http.target:forged");
                        }
                    }
                    """,
            "dev/postern/archfixtures/forged/PermitConstructorReference.java", """
                    package dev.postern.archfixtures.forged;
                    import java.util.function.Function;
                    public final class PermitConstructorReference {
                        static Function<String, dev.postern.policy.AuthorizedSshCommand> factory() {
                            return dev.postern.policy.AuthorizedSshCommand::new;
                        }
                    }
                    """,
            "dev/postern/archfixtures/forged/ForgedPermit.java", """
                    package dev.postern.archfixtures.forged;
                    public final class ForgedPermit extends dev.postern.policy.AuthorizedAction {
                        ForgedPermit() {
                            super("forged");
                        }
                    }
                    """);

    private ForgedPermits() {
    }

    /** Compiles the forgers under {@code directory}; returns where their class files, and only theirs, are. */
    static Location compile(Path directory) {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("the forged-permit fixtures need a JDK, not a JRE");
        }
        try {
            Path sources = Files.createDirectories(directory.resolve("src"));
            Path classes = Files.createDirectories(directory.resolve("classes"));
            List<String> arguments = new ArrayList<>(List.of(
                    "--release", "17", "-proc:none", "-classpath", classes.toString(), "-d", classes.toString()));
            for (Map.Entry<String, String> source : SOURCES.entrySet()) {
                Path file = sources.resolve(source.getKey());
                Files.createDirectories(file.getParent());
                Files.writeString(file, source.getValue(), StandardCharsets.UTF_8);
                arguments.add(file.toString());
            }
            int status = javac.run(null, null, null, arguments.toArray(String[]::new));
            if (status != 0) {
                throw new IllegalStateException("javac failed on the forged-permit fixtures, status " + status);
            }
            return Location.of(classes.resolve("dev/postern/archfixtures/forged"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
