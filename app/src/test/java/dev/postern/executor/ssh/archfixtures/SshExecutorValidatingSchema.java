package dev.postern.executor.ssh.archfixtures;

import com.networknt.schema.Schema;

/** Violation: an executor validating JSON Schema. Never run. */
public final class SshExecutorValidatingSchema {
    private SshExecutorValidatingSchema() {
    }

    static String describe(Schema schema) {
        return schema.toString();
    }
}
