package dev.sendlog.service.send;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who uses the send path's provider calls, per tenant and per gateway (issue 29's metrics): {@code gateway.<g>.send.calls}
 * and {@code tenant.<t>.send.calls} meter every call a send worker makes (a submit, or the status query before a retry
 * that replaces it; their rates are the rate used), and {@code tenant.<t>.calls.in.flight} counts a tenant's calls under
 * way in this process: over the lanes' bounds ({@code send.provider.bound} plus {@code send-high.provider.bound}) it
 * is the tenant's share of the bound. Every send worker of a process (both lanes) counts into the same metrics.
 * Tenants are the configured keys' tenants, so the names are a bounded set.
 */
final class SendShares {
    private final MetricRegistry metrics;
    private final Map<String, Meter> gatewaySubmits = new ConcurrentHashMap<>();
    private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();

    private record Tenant(Meter calls, Counter inFlight) {}

    SendShares(MetricRegistry metrics) {
        this.metrics = metrics;
    }

    /** A provider call about to be made for {@code tenant} through {@code gateway}; close it when the call has ended. */
    Call start(String tenant, String gateway) {
        gatewaySubmits
                .computeIfAbsent(gateway, g -> metrics.meter("gateway." + g + ".send.calls"))
                .mark();
        Tenant t = tenants.computeIfAbsent(
                tenant,
                n -> new Tenant(
                        metrics.meter("tenant." + n + ".send.calls"),
                        metrics.counter("tenant." + n + ".calls.in.flight")));
        t.calls().mark();
        t.inFlight().inc();
        return new Call(t.inFlight());
    }

    /** One call under way; closing it (once) takes it off its tenant's calls in flight. */
    static final class Call implements AutoCloseable {
        private final Counter inFlight;
        private boolean closed;

        private Call(Counter inFlight) {
            this.inFlight = inFlight;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                inFlight.dec();
            }
        }
    }
}
