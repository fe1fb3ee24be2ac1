package dev.postern.policy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a place a new kind of effect must touch outside its own files: a sealed type whose
 * {@code permits} lists every kind, the engine's list of rules, the protocol interface each kind
 * implements, the config section, the deep checks' interface and the composition root's registration line. CONTRIBUTING.md,
 * "Adding an executor adapter", lists exactly the marked places, and {@code RegistrationPointsTest}
 * keeps the two equal.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface RegistrationPoint {

    /** What the new kind adds here, in a few words. */
    String value();
}
