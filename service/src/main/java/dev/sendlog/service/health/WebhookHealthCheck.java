package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Status webhooks (issue 27): reports the owed deliveries on {@code /healthcheck} without ever failing it, and raises
 * the alarm detail ({@code alarmsRaised}) while the oldest has been owed longer than {@code webhooks.maxOwedAge}: one
 * tenant's endpoint down or slow past its retries' pace, or no webhook-worker process running. Like the failure alarms
 * (issue 24, item 4), that is for a person to act on, not a reason for a load balancer to take every node out: each
 * node still takes and passes on messages. One aggregate over the owed rows (few, when deliveries keep up).
 */
public final class WebhookHealthCheck extends HealthCheck {
    private final WebhookDeliveries deliveries;
    private final InstantSource clock;
    private final Duration max;

    public WebhookHealthCheck(WebhookDeliveries deliveries, InstantSource clock, Duration max) {
        this.deliveries = deliveries;
        this.clock = clock;
        this.max = max;
    }

    @Override
    protected Result check() {
        WebhookDeliveries.Backlog backlog = deliveries.backlog();
        if (backlog.oldestOwedSince() == null) {
            return Result.builder()
                    .healthy()
                    .withDetail("alarmsRaised", false)
                    .withMessage("no webhook delivery owed")
                    .build();
        }
        Instant now = clock.instant();
        Duration age = Duration.between(backlog.oldestOwedSince(), now);
        boolean raised = age.compareTo(max) > 0;
        String message = raised
                ? backlog.owed() + " webhook deliveries owed, the oldest for " + age.toSeconds() + " s (limit "
                        + max.toSeconds()
                        + " s): an endpoint fails or no webhook-worker runs; GET /v1/admin/webhooks/dead lists those given up"
                        + " (an alarm: not the node's health)"
                : backlog.owed() + " webhook deliveries owed, the oldest for " + Math.max(0, age.toSeconds()) + " s";
        return Result.builder()
                .healthy()
                .withDetail("alarmsRaised", raised)
                .withMessage(message)
                .build();
    }
}
