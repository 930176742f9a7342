package dev.sendlog.service.health;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reports the reconciler (issue 32) on {@code /healthcheck} without ever failing it: asking providers is not taking or
 * passing on work. Per gateway the share of finals learned by query since start; a gateway that learns most of its finals
 * by asking (at least {@link #MIN_FINALS} of them, over {@link #QUERY_SHARE_ALARM}) is named, as its callbacks are
 * likely failing: the provider's side, or our endpoint as the provider sees it.
 */
public final class ReconcileHealthCheck extends HealthCheck {
    static final long MIN_FINALS = 20;
    static final double QUERY_SHARE_ALARM = 0.5;

    private final MetricRegistry metrics;
    private final Set<String> gateways;

    public ReconcileHealthCheck(MetricRegistry metrics, Set<String> gateways) {
        this.metrics = metrics;
        this.gateways = new TreeSet<>(gateways);
    }

    @Override
    protected Result check() {
        StringBuilder summary = new StringBuilder("queries ")
                .append(count("reconcile.queries"))
                .append(", answered ")
                .append(count("reconcile.queries.answered"))
                .append(", not found ")
                .append(count("reconcile.queries.not.found"))
                .append(", failed ")
                .append(count("reconcile.queries.failed"))
                .append(", unknown after asking ")
                .append(count("reconcile.unknown"));
        StringBuilder raised = new StringBuilder();
        for (String gateway : gateways) {
            long byQuery = count("receipts.finals.by.query." + gateway);
            long byCallback = count("receipts.finals.by.callback." + gateway);
            long all = byQuery + byCallback;
            summary.append("; ")
                    .append(gateway)
                    .append(": ")
                    .append(byQuery)
                    .append(" of ")
                    .append(all)
                    .append(" finals by query");
            if (all >= MIN_FINALS && byQuery > QUERY_SHARE_ALARM * all) {
                raised.append("gateway ")
                        .append(gateway)
                        .append(" learns most finals by query (")
                        .append(byQuery)
                        .append(" of ")
                        .append(all)
                        .append("): are its callbacks failing? ");
            }
        }
        return Result.builder()
                .healthy()
                .withDetail("alarmsRaised", !raised.isEmpty())
                .withMessage(
                        raised.isEmpty()
                                ? summary.toString()
                                : raised.toString().trim() + " (" + summary + ")")
                .build();
    }

    private long count(String name) {
        Counter c = metrics.getCounters().get(name);
        return c == null ? 0 : c.getCount();
    }
}
