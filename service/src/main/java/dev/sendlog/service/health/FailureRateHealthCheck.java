package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import java.util.Map;

/**
 * Reports the failure alarms ({@link FailureRates}) on {@code /healthcheck} without ever failing it (API.md: alarms that
 * are not about taking or passing on work are reported but do not fail it). A load balancer reads this endpoint: a
 * burst of DEAD, UNKNOWN or parked input says nothing about whether this node can take work.
 */
public final class FailureRateHealthCheck extends HealthCheck {
    private final FailureRates rates;

    public FailureRateHealthCheck(FailureRates rates) {
        this.rates = rates;
    }

    @Override
    protected Result check() {
        Map<String, FailureRates.Alarm> alarms = rates.alarms();
        StringBuilder raised = new StringBuilder();
        alarms.forEach((name, a) -> {
            if (a.raised()) {
                raised.append(label(name))
                        .append(" rising: ")
                        .append(a.lastMinute())
                        .append(" in the last minute, limit ")
                        .append(a.limit())
                        .append(". ");
            }
        });
        String summary = "last minute: " + alarms.get("dead").lastMinute() + " DEAD, "
                + alarms.get("unknown").lastMinute() + " UNKNOWN, "
                + alarms.get("parked").lastMinute() + " parked";
        ResultBuilder result = Result.builder().healthy().withDetail("alarmsRaised", !raised.isEmpty());
        return result.withMessage(
                        raised.isEmpty()
                                ? summary
                                : raised.toString().trim() + " (" + summary
                                        + "; an alarm, see GET /alarms: not the node's health)")
                .build();
    }

    private static String label(String name) {
        return switch (name) {
            case "dead" -> "DEAD";
            case "unknown" -> "UNKNOWN";
            default -> "parked callbacks";
        };
    }
}
