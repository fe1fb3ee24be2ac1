package dev.postern.protocol.tools;

import dev.postern.policy.model.Allowance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The kinds the protocol's own tests present: every {@link EffectKind} this module compiles, found in its
 * classes (the protocol module cannot see the composition root's registration), so a new kind is
 * presented by these tests without editing one. Ordered as the kernel lists their allowances (the
 * {@code permits} of {@link Allowance}), the order the composition root registers them in.
 */
public final class TestKinds {
    public static final EffectKinds ALL = EffectKinds.of(compiled().toArray(EffectKind<?, ?, ?>[]::new));

    private TestKinds() {
    }

    /** A new instance of every concrete kind in the package of {@link EffectKind}, in the kernel's order. */
    static List<EffectKind<?, ?, ?>> compiled() {
        List<EffectKind<?, ?, ?>> kinds = new ArrayList<>();
        for (Class<?> c : classesOfThePackage()) {
            if (EffectKind.class.isAssignableFrom(c) && !c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
                try {
                    kinds.add((EffectKind<?, ?, ?>) c.getDeclaredConstructor().newInstance());
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(c.getName() + " needs a no-argument constructor to be presented by the protocol's tests", e);
                }
            }
        }
        List<Class<?>> order = List.of(Allowance.class.getPermittedSubclasses());
        kinds.sort(Comparator.comparingInt(k -> order.indexOf(k.allowanceType())));
        return kinds;
    }

    private static List<Class<?>> classesOfThePackage() {
        try {
            Path dir = Path.of(EffectKind.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .resolve(EffectKind.class.getPackageName().replace('.', '/'));
            List<Class<?>> classes = new ArrayList<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                    String name = f.getFileName().toString();
                    if (name.endsWith(".class") && !name.contains("$")) {
                        classes.add(Class.forName(EffectKind.class.getPackageName() + "." + name.substring(0, name.length() - 6)));
                    }
                }
            }
            return classes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException | ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }
}
