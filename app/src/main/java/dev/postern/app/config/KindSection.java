package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One kind's part of the config file: where its array is, the schema fragment of its top-level member,
 * the entry fields that hold paths, and how one entry becomes one allowance. Named in the kind's
 * registration line; {@link ConfigLoader} loops over the registered sections in registration order, so
 * a kind reads its own section and no other code knows it. Implementations are stateless.
 */
@RegistrationPoint("one implementation per kind, its schema fragment beside it, named in the kind's registration line")
public interface KindSection<A extends Allowance> {

    /** The JSON pointer of the kind's array of entries, e.g. {@code /http/targets}: its top-level member, then the array. */
    String pointer();

    /** The allowance type every entry becomes; the same as the registered kind's. */
    Class<A> allowanceType();

    /**
     * The class-path resource holding the schema of the kind's top-level member: the shipped schema's
     * {@code /properties/}{@link #member()}, the same JSON ({@code KindSectionsTest} holds them equal). It may
     * refer to the shipped schema's shared {@code $defs} ({@code credentialName}, {@code rateLimit}).
     */
    String schemaFragment();

    /**
     * Each entry field that holds a path, as a JSON pointer relative to the entry (e.g.
     * {@code /trustStore/file}); the loader refuses one starting with {@code ~} before any entry is read.
     */
    List<String> pathFields();

    /**
     * One entry, at {@code at}, as its allowance: the schema has checked its shape; what the schema cannot
     * say is checked here (files exist, credentials are defined) and by the kernel record's own constructor.
     * Every field that names a credential is read with {@link Reading#credential}.
     */
    A entry(Reading reading, String at, JsonNode entry) throws ConfigException;

    /** Every entry of the kind's array ({@code entries} is missing when the file has no such section), in file order. */
    default List<A> read(Reading reading, JsonNode entries) throws ConfigException {
        List<A> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            out.add(entry(reading, pointer() + "/" + i, entries.get(i)));
        }
        return out;
    }

    /**
     * The approval channel each of this kind's {@code confirm} rules names itself, by the rule id the
     * kind's policy rules give ({@link ApprovalChannels}); entries whose {@code confirm} is {@code true}
     * (the session's channel) or absent are not listed. The schema has checked the entries' shape.
     */
    default Map<String, ApprovalChannel> approvalChannels(JsonNode entries) {
        return Map.of();
    }

    /** The top-level member of the config file this section owns: the first step of {@link #pointer()}. */
    default String member() {
        return pointer().substring(1).split("/", 2)[0];
    }

    /**
     * What a section may use while it reads: the config file (for errors), its directory (relative paths
     * resolve against it) and the credentials the file defines (only named here, never read).
     */
    record Reading(Path file, Path dir, Map<CredentialRef, CredentialSource> credentials) {
        public Reading {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(dir, "dir");
            credentials = Map.copyOf(Objects.requireNonNull(credentials, "credentials"));
        }

        /**
         * The one way a field that names a credential is read (the schema's {@code credentialName}): the
         * name of a defined credential, else an error that never shows the field's value.
         */
        public CredentialRef credential(String at, JsonNode field) throws ConfigException {
            return ConfigLoader.credential(file, at, field, credentials);
        }

        /** A path field's value resolved against the config file's directory. */
        public Path resolve(JsonNode field) {
            return dir.resolve(field.textValue()).normalize();
        }

        /** An error at {@code at} in this file, saying what was expected. */
        public ConfigException error(String at, String expected) {
            return new ConfigException(file, at, expected);
        }
    }
}
