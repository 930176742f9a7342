package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.config.Components;
import dev.sendlog.service.config.ReceiptSettings;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.LocalInfrastructure;
import dev.sendlog.service.db.PoolRole;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.log.MessageReader;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.queue.StreamKeys;
import dev.sendlog.service.receipts.CallbackRecorder;
import dev.sendlog.service.receipts.CallbackWorker;
import dev.sendlog.service.receipts.Inbox;
import dev.sendlog.service.receipts.InboxSweeper;
import dev.sendlog.service.receipts.IntakeBound;
import dev.sendlog.service.receipts.ReceiptMatcher;
import dev.sendlog.service.receipts.Vocabulary;
import dev.sendlog.service.resources.CallbackResource;
import dev.sendlog.service.resources.DirectCallback;
import dev.sendlog.service.tasks.RunNowTask;
import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Receipts: the callback inbox, its stream, the callback workers and the sweeper of the inbox. */
final class ReceiptWiring extends ComponentWiring {
    /** Threads that commit callback decisions (each a group commit of many). */
    private static final int RECORD_WRITERS = 2;

    ReceiptWiring(Parts parts) {
        super(parts);
    }

    Inbox wire(
            SendlogConfiguration config,
            Environment env,
            Pools pools,
            EventStore events,
            LocalInfrastructure local,
            String instance,
            Semaphore callbackPermits,
            int callbackBound,
            boolean smppReceipts) {
        MetricRegistry metrics = env.metrics();
        ReceiptSettings r = config.receipts;
        Inbox inbox = null;
        // The callback job type has its own Redis client and connections, and may have its own Redis.
        JobStream callbackStream = jobStore(
                config,
                env,
                local.callbackRedisUri(),
                "callback",
                StreamKeys.callback(config.redis.keyPrefix),
                StreamKeys.CALLBACK_GROUP,
                instance);
        if (config.components.contains(Components.API) || smppReceipts) {
            inbox = new Inbox(
                    pools.dsl(PoolRole.CALLBACKS),
                    callbackStream,
                    clock,
                    r.inboxWriters,
                    r.storeTimeout.toJavaDuration(),
                    metrics);
            env.lifecycle().manage(inbox);
        }
        if (config.components.contains(Components.API)) {
            IntakeBound intake = new IntakeBound(r.maxConcurrentIntake, r.intakeWait.toJavaDuration(), metrics);
            env.jersey().register(new CallbackResource(config.gateways, inbox, intake, clock, metrics));
            if (r.directIntake) {
                env.servlets()
                        .addFilter(
                                "direct-callback",
                                new DirectCallback(
                                        config.gateways,
                                        inbox,
                                        intake,
                                        SendlogApplication.MAX_BODY_BYTES,
                                        env.getObjectMapper(),
                                        metrics))
                        .addMappingForUrlPatterns(
                                EnumSet.of(DispatcherType.REQUEST), true, DirectCallback.PATH_PREFIX + "*");
            }
        }
        if (config.components.contains(Components.CALLBACK_WORKER)) {
            Map<String, Vocabulary> vocabularies = new HashMap<>();
            config.gateways.forEach((name, g) -> vocabularies.put(name, Vocabulary.named(g.vocabulary, g.statusMap)));
            CallbackRecorder recorder = new CallbackRecorder(
                    pools.dsl(PoolRole.CALLBACKS), events, clock, RECORD_WRITERS, metrics, tallies);
            env.lifecycle().manage(recorder);
            // Batches on platform threads of their own: enough for every batch the bound admits to run at once.
            int batchThreads = (callbackBound + r.batchSize - 1) / r.batchSize;
            StreamConsumer consumer = new StreamConsumer(
                    "callbacks",
                    callbackStream,
                    callbackPermits,
                    Duration.ofMillis(config.pipeline.sendWorker.reclaimIdle.toMilliseconds()),
                    batchThreads,
                    metrics);
            new CallbackWorker(
                    consumer,
                    pools.dsl(PoolRole.CALLBACKS),
                    new MessageReader(pools.dsl(PoolRole.CALLBACKS), events),
                    new ReceiptMatcher(pools.dsl(PoolRole.CALLBACKS)),
                    recorder,
                    vocabularies,
                    Duration.ofMillis(r.holdWindow.toMilliseconds()),
                    r.batchSize,
                    clock,
                    "callbacks-" + instance,
                    metrics);
            env.lifecycle().manage(consumer);
            shutdown.consumer(consumer, null);
            pausables.put("callback-worker", new Pausable(consumer::pauseReading, consumer::resume));
            InboxSweeper sweeper = new InboxSweeper(pools.dsl(PoolRole.CALLBACKS), callbackStream, metrics);
            ScheduledExecutorService sweeps = env.lifecycle()
                    .scheduledExecutorService("inbox-sweeper-%d")
                    .threads(1)
                    .build();
            long every = r.sweepEvery.toMilliseconds();
            sweeps.scheduleWithFixedDelay(sweeper, every, every, TimeUnit.MILLISECONDS);
            env.admin().addTask(new RunNowTask("sweep-callback-inbox", sweeper::sweep));
        }
        return inbox;
    }
}
