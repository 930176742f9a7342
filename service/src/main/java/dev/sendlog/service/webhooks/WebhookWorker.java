package dev.sendlog.service.webhooks;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sendlog.events.JsonMappers;
import dev.sendlog.service.metrics.Metrics;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamEntry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers status webhooks (API.md, "Status webhooks"; DESIGN invariant 17): reads the webhook stream, posts each owed
 * delivery signed to its tenant's endpoint, and records the attempt with what follows it (delivered, a retry at its
 * time, or DEAD) under the job's lease.
 *
 * <p>One endpoint never delays another's deliveries: each endpoint (one per tenant) has a lane with at most
 * {@code perEndpointConcurrency} deliveries in flight, each holding one of the job type's permits; its other jobs wait
 * in the lane's queue holding none, and beyond {@code perEndpointQueue} they are left on the stream. So an endpoint
 * that hangs for the whole timeout holds its few permits and nothing else, whatever its backlog.
 */
public final class WebhookWorker {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookWorker.class);
    public static final String MESSAGE = "m";
    public static final String SEQ = "s";
    public static final String TENANT = "t";
    public static final String LEASE = "l";

    private final StreamConsumer consumer;
    private final WebhookDeliveries deliveries;
    private final WebhookStore registrations;
    private final WebhookPoster poster;
    private final WebhookRetries retries;
    private final InstantSource clock;
    private final int perEndpoint;
    private final int perEndpointQueue;
    private final ObjectMapper json = JsonMappers.pooled();
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private final Meter delivered;
    private final Meter failedAttempts;
    private final Meter dead;
    private final Counter deferred;
    private final Counter stale;
    private final Timer eventToDelivered;

    /** One endpoint's deliveries: how many run, and the entries waiting for a slot (holding no permit). */
    private static final class Lane {
        int running;
        final ArrayDeque<StreamEntry> waiting = new ArrayDeque<>();
        /** Entry ids running or waiting here: an entry reclaimed while it waits is not queued twice. */
        final Set<String> known = new HashSet<>();
    }

    public WebhookWorker(
            StreamConsumer consumer,
            WebhookDeliveries deliveries,
            WebhookStore registrations,
            WebhookPoster poster,
            WebhookRetries retries,
            InstantSource clock,
            int perEndpoint,
            int perEndpointQueue,
            MetricRegistry metrics) {
        this.consumer = consumer;
        this.deliveries = deliveries;
        this.registrations = registrations;
        this.poster = poster;
        this.retries = retries;
        this.clock = clock;
        this.perEndpoint = perEndpoint;
        this.perEndpointQueue = perEndpointQueue;
        this.delivered = metrics.meter("webhooks.delivered");
        this.failedAttempts = metrics.meter("webhooks.attempts.failed");
        this.dead = metrics.meter("webhooks.dead");
        this.deferred = metrics.counter("webhooks.deferred");
        this.stale = metrics.counter("webhooks.jobs.stale");
        this.eventToDelivered = Metrics.timer(metrics, "webhooks.event.to.delivered");
        metrics.registerGauge(
                "webhooks.endpoints.busy",
                () -> lanes.values().stream()
                        .filter(l -> {
                            synchronized (l) {
                                return l.running > 0;
                            }
                        })
                        .count());
        consumer.onEntries(this::handle);
    }

    private void handle(List<StreamEntry> entries) {
        for (StreamEntry entry : entries) {
            String tenant = entry.fields().get(TENANT);
            if (tenant == null || job(entry) == null) {
                LOG.warn("webhook job without its fields is dropped entry_id={} fields={}", entry.id(), entry.fields());
                consumer.finished(List.of(entry));
                continue;
            }
            Lane lane = lanes.computeIfAbsent(tenant, t -> new Lane());
            boolean run;
            synchronized (lane) {
                if (!lane.known.add(entry.id())) {
                    consumer.abandoned(List.of(entry)); // already here (reclaimed while it waited): nothing to do twice
                    continue;
                }
                if (lane.running < perEndpoint) {
                    lane.running++;
                    run = true;
                } else if (lane.waiting.size() < perEndpointQueue) {
                    lane.waiting.add(entry);
                    run = false;
                } else {
                    lane.known.remove(entry.id());
                    deferred.inc();
                    consumer.abandoned(List.of(entry)); // left pending on the stream: reclaimed, or its lease ends
                    continue;
                }
            }
            if (run) {
                consumer.dispatch(entry, () -> runLane(lane, entry));
            } else {
                consumer.abandoned(List.of(entry)); // waits in the lane without a permit; acknowledged once delivered
            }
        }
    }

    /** Delivers {@code first}, then whatever waits in its lane, on this job's permit; acknowledges each one it finishes. */
    private boolean runLane(Lane lane, StreamEntry first) {
        StreamEntry entry = first;
        while (entry != null) {
            try {
                if (deliverOne(entry)) {
                    consumer.acknowledge(entry);
                }
            } catch (RuntimeException e) {
                // The database or the registration could not be read: the entry stays pending, its lease brings it
                // back.
                LOG.warn(
                        "webhook delivery failed before its outcome was recorded entry_id={} event_id={}:{}; it comes back "
                                + "with its lease: {}",
                        entry.id(),
                        entry.fields().get(MESSAGE),
                        entry.fields().get(SEQ),
                        e.toString());
            }
            synchronized (lane) {
                lane.known.remove(entry.id());
                entry = lane.waiting.poll();
                if (entry == null) {
                    lane.running--;
                }
            }
        }
        return false; // acknowledged above, one by one
    }

    private record Job(UUID messageId, int seq, int lease) {}

    private static Job job(StreamEntry entry) {
        try {
            return new Job(
                    UUID.fromString(entry.fields().get(MESSAGE)),
                    Integer.parseInt(entry.fields().get(SEQ)),
                    Integer.parseInt(entry.fields().get(LEASE)));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** One attempt of one delivery; true when the job is finished with (recorded, or stale). */
    boolean deliverOne(StreamEntry entry) {
        Job job = job(entry);
        Optional<WebhookDeliveries.ToDeliver> found = deliveries.toDeliver(job.messageId(), job.seq());
        if (found.isEmpty()
                || found.get().delivery().state() != WebhookDeliveries.OWED
                || found.get().delivery().lease() != job.lease()) {
            stale.inc();
            return true;
        }
        WebhookDeliveries.ToDeliver t = found.get();
        WebhookDeliveries.Delivery d = t.delivery();
        Instant now = clock.instant();
        if (t.url() == null) {
            if (deliveries.closeUnsent(d, now, "no webhook is registered for tenant " + d.tenant())) {
                dead.mark();
            }
            return true;
        }
        byte[] body = body(t);
        String signature = WebhookSignature.header(
                now.getEpochSecond(),
                body,
                registrations.signingSecrets(d.tenant(), t.secret(), t.previousSecret(), t.previousUntil(), now));
        WebhookPoster.Outcome outcome = poster.post(t.url(), d.eventId(), signature, body);
        Instant after = clock.instant();
        if (outcome.delivered()) {
            if (deliveries.record(
                    d, after, outcome.httpStatus(), outcome.detail(), WebhookDeliveries.DELIVERED, null)) {
                delivered.mark();
                eventToDelivered.update(Duration.between(d.eventAt(), after).abs());
            }
            return true;
        }
        failedAttempts.mark();
        Instant next = retries.next(after, d.attempts() + 1, outcome.retryAfter(), d.owedSince());
        if (next == null) {
            if (deliveries.record(
                    d,
                    after,
                    outcome.httpStatus(),
                    outcome.detail() + "; retried for " + retries.window() + ", now DEAD",
                    WebhookDeliveries.DEAD,
                    null)) {
                dead.mark();
                LOG.warn(
                        "webhook delivery DEAD event_id={} tenant={} attempts={} last={}",
                        d.eventId(),
                        d.tenant(),
                        d.attempts() + 1,
                        outcome.detail());
            }
        } else {
            deliveries.record(d, after, outcome.httpStatus(), outcome.detail(), WebhookDeliveries.OWED, next);
        }
        return true;
    }

    /**
     * The body of API.md: the event id, the message, the status the event gave it and when, the client's reference, and
     * the provider's status word and error code when the event was a receipt (null otherwise; copied at owe time).
     */
    private byte[] body(WebhookDeliveries.ToDeliver t) {
        WebhookDeliveries.Delivery d = t.delivery();
        ObjectNode node = json.createObjectNode()
                .put("eventId", d.eventId())
                .put("messageId", d.messageId().toString())
                .put("seq", d.seq())
                .put("status", d.status())
                .put("at", d.eventAt().toString())
                .put("reference", t.reference())
                .put("providerStatus", t.providerStatus())
                .put("errorCode", t.errorCode());
        try {
            return json.writeValueAsBytes(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a webhook body did not serialise", e);
        }
    }
}
