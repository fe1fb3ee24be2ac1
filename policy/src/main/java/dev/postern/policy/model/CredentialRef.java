package dev.postern.policy.model;

/** The name of a credential in the credential store; never the secret itself. */
public record CredentialRef(String name) {
    public CredentialRef {
        Names.require("credential name", name);
    }

    @Override
    public String toString() {
        return name;
    }
}
