package dev.postern.policy.model;

import java.util.regex.Pattern;

/** The shape of every operator-chosen name in a policy: target, host, command, credential, param. */
final class Names {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private Names() {
    }

    static String require(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must match " + NAME.pattern() + ", got " + quote(name));
        }
        return name;
    }

    static String quote(String s) {
        return s == null ? "null" : '"' + s + '"';
    }
}
