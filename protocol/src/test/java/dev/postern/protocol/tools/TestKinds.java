package dev.postern.protocol.tools;

/**
 * The kinds the protocol's own tests present: the protocol module cannot see the composition root's
 * registration, so its tests name the kinds they exercise here, once.
 */
public final class TestKinds {
    public static final EffectKinds ALL = EffectKinds.of(new HttpRequestKind(), new SshExecKind(), new SqlQueryKind());

    private TestKinds() {
    }
}
