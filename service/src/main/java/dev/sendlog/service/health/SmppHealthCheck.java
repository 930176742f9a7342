package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.provider.smpp.SmppGateway;

/**
 * One SMPP gateway's binds as this process holds them: healthy while at least one is up (its submits and receipts have
 * a session), unhealthy while none is, naming the SMSC and why the last bind failed. Its metrics carry the rest:
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
                : Result.unhealthy(summary + "; last bind error: " + gateway.lastBindError());
    }
}
