package dev.sendlog.service.health;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reports each gateway as this send-worker process sees it (issue 29) on {@code /healthcheck}, without ever failing
 * it: a gateway that is down is the provider's trouble, and this process still takes and passes on work (routed
 * messages to the next gateway, the others into their retries). Per gateway: whether it is marked down, the failovers
 * away from it, the 429s, and its rate when it has one. A gateway marked down raises the alarm detail.
 */
public final class GatewaysHealthCheck extends HealthCheck {
    private final MetricRegistry metrics;
    private final Set<String> gateways;

    public GatewaysHealthCheck(MetricRegistry metrics, Set<String> gateways) {
        this.metrics = metrics;
        this.gateways = new TreeSet<>(gateways);
    }

    @Override
    protected Result check() {
        StringBuilder summary = new StringBuilder();
        StringBuilder down = new StringBuilder();
        for (String gateway : gateways) {
            String base = "gateway." + gateway;
            boolean isDown = gauge(base + ".down") > 0;
            summary.append(summary.isEmpty() ? "" : "; ")
                    .append(gateway)
                    .append(isDown ? " DOWN" : " up")
                    .append(", failovers away ")
                    .append(count(base + ".failovers"))
                    .append(", marked down ")
                    .append(count(base + ".marked.down"))
                    .append(" times")
                    .append(", 429s ")
                    .append(count(base + ".rate.throttles"));
            Meter calls = metrics.getMeters().get(base + ".send.calls");
            if (calls != null) {
                summary.append(", send calls ")
                        .append(String.format(java.util.Locale.ROOT, "%.1f", calls.getOneMinuteRate()))
                        .append("/s over the last minute");
            }
            long rate = gauge(base + ".rate.per.second");
            if (rate > 0) {
                summary.append(", rate ").append(rate).append("/s");
            }
            if (isDown) {
                down.append(down.isEmpty() ? "" : ", ").append(gateway);
            }
        }
        String message = down.isEmpty() ? summary.toString() : "marked down: " + down + " (" + summary + ")";
        return Result.builder()
                .healthy()
                .withDetail("alarmsRaised", !down.isEmpty())
                .withMessage(message)
                .build();
    }

    private long count(String name) {
        Counter c = metrics.getCounters().get(name);
        return c == null ? 0 : c.getCount();
    }

    private long gauge(String name) {
        Gauge<?> g = metrics.getGauges().get(name);
        return g != null && g.getValue() instanceof Number n ? n.longValue() : 0;
    }
}
