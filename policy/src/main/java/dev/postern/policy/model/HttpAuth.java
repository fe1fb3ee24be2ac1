package dev.postern.policy.model;

import java.util.Objects;
import java.util.Optional;

/**
 * How the executor authenticates to a target: a credential and a scheme. {@code HEADER} puts the
 * secret as-is in the named header; the others build {@code Authorization}.
 */
public record HttpAuth(CredentialRef credential, Scheme scheme, Optional<String> headerName) {

    public enum Scheme { BEARER, BASIC, HEADER }

    public HttpAuth {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(headerName, "headerName");
        if ((scheme == Scheme.HEADER) != headerName.isPresent()) {
            throw new IllegalArgumentException("auth.header is required with scheme \"header\" and only with it");
        }
        headerName.filter(h -> !HttpSyntax.isToken(h)).ifPresent(h -> {
            throw new IllegalArgumentException("auth.header must be a header name (an RFC 9110 token), got \"" + h + '"');
        });
    }
}
