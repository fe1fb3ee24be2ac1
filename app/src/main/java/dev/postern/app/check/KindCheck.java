package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.model.Allowance;
import java.util.List;
import java.util.Objects;

/**
 * One kind's part of {@code check-config --deep}: what its allowances need at call time that the
 * config's validity does not prove. {@link #local} reads files and the config and resolves no name;
 * {@link #addresses} resolves the allowances' host names ({@code names} says which) and judges them
 * as the kind's executor would; {@link #connect} ({@code --connect}) reaches each allowance as a call
 * would and runs nothing there. Each returns its findings in allowance order and changes nothing.
 * Registered with its kind in {@code Gateway.KINDS}; a kind with nothing to check says so there,
 * with {@link #none}. Implementations are stateless and thread-safe.
 */
@RegistrationPoint("one implementation per kind, or KindCheck.none, named in the kind's registration line")
public interface KindCheck {

    /** The allowances this checks: its kind's {@code EffectKind.allowanceType()}. */
    Class<? extends Allowance> allowanceType();

    /** What needs no name resolved and no connection: files, parameters. */
    List<Finding> local(GatewayConfig config);

    /** Each allowance's host, resolved if {@code names} covers it, judged as the executor judges it before dialing. */
    List<Finding> addresses(GatewayConfig config, HostNames names);

    /** {@code --connect}: each allowance reached as a call would reach it, without running anything. */
    List<Finding> connect(GatewayConfig config);

    /** The explicit declaration that a kind's allowances have no deep checks. */
    static KindCheck none(Class<? extends Allowance> allowanceType) {
        return new None(allowanceType);
    }

    /** A kind that declared, in its registration line, that it has nothing to check. */
    record None(Class<? extends Allowance> allowanceType) implements KindCheck {
        public None {
            Objects.requireNonNull(allowanceType, "allowanceType");
        }

        @Override
        public List<Finding> local(GatewayConfig config) {
            return List.of();
        }

        @Override
        public List<Finding> addresses(GatewayConfig config, HostNames names) {
            return List.of();
        }

        @Override
        public List<Finding> connect(GatewayConfig config) {
            return List.of();
        }
    }
}
