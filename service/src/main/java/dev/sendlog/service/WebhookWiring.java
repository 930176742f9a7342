package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.tasks.RunNowTask;
import dev.sendlog.service.webhooks.SecretBox;
import dev.sendlog.service.webhooks.WebhookDeliveries;
import dev.sendlog.service.webhooks.WebhookDispatcher;
import dev.sendlog.service.webhooks.WebhookPoster;
import dev.sendlog.service.webhooks.WebhookRetries;
import dev.sendlog.service.webhooks.WebhookStore;
import dev.sendlog.service.webhooks.WebhookTargets;
import dev.sendlog.service.webhooks.WebhookWorker;
import io.dropwizard.core.setup.Environment;
import java.util.concurrent.Semaphore;

/** Status webhook deliveries: the dispatcher that leases owed deliveries onto their stream, and the worker. */
final class WebhookWiring extends ComponentWiring {

    WebhookWiring(Parts parts) {
        super(parts);
    }

    /**
     * Status webhook deliveries (issue 27): the dispatcher that leases owed deliveries onto the webhook stream, and the
     * worker that posts them, with a Redis client, a stream, a bound, a pool and an HTTP client of their own.
     */
    void wire(SendlogConfiguration config, Environment env, Pools pools, LocalInfrastructure local, String instance)
            throws Exception {
        MetricRegistry metrics = env.metrics();
        var w = config.webhooks;
        if (w.secretKey.isBlank()) {
            throw new IllegalStateException(
                    "refusing to start the webhook worker: webhooks.secretKey is not set; it opens "
                            + "the signing secrets the API stored under it");
        }
        JobStream stream = jobStore(
                config,
                env,
                local.sendRedisUri(),
                "webhook",
                StreamKeys.webhook(config.redis.keyPrefix),
                StreamKeys.WEBHOOK_GROUP,
                instance);
        WebhookDeliveries deliveries = new WebhookDeliveries(pools.dsl(PoolRole.WEBHOOKS));
        WebhookDispatcher dispatcher = new WebhookDispatcher(
                deliveries,
                stream,
                clock,
                w.leaseTimeout.toJavaDuration(),
                w.dispatchEvery.toJavaDuration(),
                w.dispatchBatch,
                w.keepDelivered.toJavaDuration(),
                metrics);
        env.lifecycle().manage(dispatcher);
        WebhookPoster poster = new WebhookPoster(
                new WebhookTargets(w.allowPrivateTargets, WebhookTargets.SYSTEM),
                WebhookTargets.bounded(WebhookTargets.SYSTEM, WebhookTargets.RESOLVE_TIMEOUT),
                w.connectTimeout.toJavaDuration(),
                w.timeout.toJavaDuration(),
                w.concurrency);
        shutdown.closeLast(poster::close);
        StreamConsumer consumer = new StreamConsumer(
                "webhooks", stream, new Semaphore(w.concurrency), w.leaseTimeout.toJavaDuration(), metrics);
        new WebhookWorker(
                consumer,
                deliveries,
                new WebhookStore(pools.dsl(PoolRole.WEBHOOKS), SecretBox.fromBase64(w.secretKey), clock),
                poster,
                new WebhookRetries(
                        w.firstRetryWait.toJavaDuration(),
                        w.maxRetryWait.toJavaDuration(),
                        w.retryFor.toJavaDuration()),
                clock,
                w.perEndpointConcurrency,
                w.perEndpointQueue,
                metrics);
        env.lifecycle().manage(consumer);
        shutdown.consumer(consumer, null);
        pausables.put("webhook-worker", new Pausable(consumer::pauseReading, consumer::resume));
        env.admin().addTask(new RunNowTask("dispatch-webhooks", dispatcher::dispatchOnce));
    }
}
