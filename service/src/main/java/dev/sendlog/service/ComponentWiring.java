package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.Lanes;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.health.QueueHealthCheck;
import dev.sendlog.service.health.RedisHealthCheck;
import dev.sendlog.service.lifecycle.ShutdownSequence;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.RedisConnections;
import dev.sendlog.service.stats.Tallies;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the wiring of the pipeline's components (dispatch, receipts, webhooks) shares: the parts every component takes
 * (the clock, the faults, the shutdown sequence, the lanes, the tallies, the components an operator may pause), and
 * the job stores each job type opens.
 */
abstract class ComponentWiring {
    /** A job stream's Redis command timeout: publishes and reads wait this long before the job is left for later. */
    static final Duration JOB_REDIS_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The Redis command timeout of state shared between processes (a gateway's rate, the query rate): short, as the
     * caller falls back to a lower rate rather than wait.
     */
    static final Duration SHARED_STATE_REDIS_TIMEOUT = Duration.ofSeconds(1);
    /** The pipeline view's Redis command timeout (its counts and the streams' depths): a slow Redis shows as gaps. */
    static final Duration STATS_REDIS_TIMEOUT = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(ComponentWiring.class);

    protected final InstantSource clock;
    protected final Faults faults;
    protected final ShutdownSequence shutdown;
    protected final Lanes lanes;
    protected final Tallies tallies;
    protected final Map<String, Pausable> pausables;

    ComponentWiring(Parts parts) {
        this.clock = parts.clock();
        this.faults = parts.faults();
        this.shutdown = parts.shutdown();
        this.lanes = parts.lanes();
        this.tallies = parts.tallies();
        this.pausables = parts.pausables();
    }

    /**
     * One job type's store: its own Redis client (closed with the application), its stream, and its two health
     * checks, {@code redis-<type>} (writable, memory) and {@code workers-<type>} (oldest unacknowledged job). The probe
     * key carries the job type's hash tag, so on a cluster it sits on the node that holds the stream.
     */
    JobStream jobStore(
            SendlogConfiguration config,
            Environment env,
            String uri,
            String jobType,
            String streamKey,
            String group,
            String instance) {
        MetricRegistry metrics = env.metrics();
        RedisConnections redis = new RedisConnections(uri, JOB_REDIS_TIMEOUT, config.redis.cluster);
        shutdown.closeLast(redis::close);
        JobStream stream = new JobStream(redis, streamKey, group, instance);
        String probe = config.redis.keyPrefix + "{" + jobType + "}:health:" + instance;
        env.healthChecks()
                .register(
                        "redis-" + jobType,
                        new RedisHealthCheck(
                                redis.connect(probe),
                                probe,
                                config.alarms.redisMemoryWarnPercent,
                                config.alarms.redisMemoryFailPercent,
                                metrics,
                                jobType));
        env.healthChecks()
                .register(
                        "workers-" + jobType,
                        new QueueHealthCheck(
                                redis.connect(streamKey),
                                streamKey,
                                group,
                                Duration.ofMillis(config.alarms.maxQueueAge.toMilliseconds()),
                                metrics,
                                jobType));
        return stream;
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", c, e.toString());
        }
    }

    static Managed managed(Runnable onStop) {
        return new Managed() {
            @Override
            public void stop() {
                onStop.run();
            }
        };
    }
}
