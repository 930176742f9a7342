package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.send.provider.smpp.SmppGateway;

/**
 * One SMPP gateway's binds as this process holds them, on {@code /healthcheck} without ever failing it (as
 * {@link GatewaysHealthCheck}: an SMSC that is down is the provider's trouble, and this process still takes and passes
 * on work, its messages for the gateway into their retries or to their route's next gateway). The message begins
 * {@code DOWN} while none of the binds is up, naming the SMSC and why the last bind failed. Its metrics carry the rest:
 * {@code gateway.<g>.smpp.binds.up}, {@code .window.inUse}, {@code .submit}, {@code .throttles}, {@code .unknown}.
 */
public final class SmppHealthCheck extends HealthCheck {
    private final SmppGateway gateway;

    public SmppHealthCheck(SmppGateway gateway) {
        this.gateway = gateway;
    }

    @Override
    protected Result check() {
        int up = gateway.bound();
        String summary = up + " of " + gateway.sessions() + " binds up to " + gateway.target() + ", "
                + gateway.windowInUse() + " submits outstanding";
        return up > 0
                ? Result.healthy(summary)
                : Result.healthy("DOWN: " + summary + "; last bind error: " + gateway.lastBindError());
    }
}
