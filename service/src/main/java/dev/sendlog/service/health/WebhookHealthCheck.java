package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Status webhooks (issue 27): unhealthy while the oldest owed delivery has been owed longer than
 * {@code webhooks.maxOwedAge}: an endpoint is down or slow past its retries' pace, or no webhook-worker process runs.
 * Says how many are owed and since when. One aggregate over the owed rows (few, when deliveries keep up).
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
            return Result.healthy("no webhook delivery owed");
        }
        Instant now = clock.instant();
        Duration age = Duration.between(backlog.oldestOwedSince(), now);
        if (age.compareTo(max) > 0) {
            return Result.unhealthy(backlog.owed() + " webhook deliveries owed, the oldest for " + age.toSeconds()
                    + " s (limit " + max.toSeconds() + " s): an endpoint fails or no webhook-worker runs; "
                    + "GET /v1/admin/webhooks/dead lists those given up");
        }
        return Result.healthy(backlog.owed() + " webhook deliveries owed, the oldest for " + Math.max(0, age.toSeconds()) + " s");
    }
}
