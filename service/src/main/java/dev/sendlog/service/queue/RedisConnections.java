package dev.sendlog.service.queue;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis client of one job type (each job type has its own, and may point at its own server or cluster).
 * Commands fail at once while disconnected instead of piling up in memory: the log in PostgreSQL is
 * the buffer, not the client. With {@code cluster}, the URI names any node of a Redis Cluster; the client
 * learns the topology from it and follows slot moves and failovers.
 */
public final class RedisConnections implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RedisConnections.class);
    private static final Duration WARM_UP = Duration.ofSeconds(10);

    private final AbstractRedisClient client;
    private final List<QueueConnection> open = new ArrayList<>();
    private final String uri;

    public RedisConnections(String uri, Duration commandTimeout) {
        this(uri, commandTimeout, false);
    }

    public RedisConnections(String uri, Duration commandTimeout, boolean cluster) {
        this.uri = uri;
        if (cluster) {
            RedisClusterClient c = RedisClusterClient.create(RedisURI.create(uri));
            c.setOptions(common(ClusterClientOptions.builder(), commandTimeout)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .enablePeriodicRefresh(Duration.ofSeconds(30))
                            .build())
                    .build());
            this.client = c;
        } else {
            RedisClient c = RedisClient.create(RedisURI.create(uri));
            c.setOptions(common(ClientOptions.builder(), commandTimeout).build());
            this.client = c;
        }
    }

    private static <B extends ClientOptions.Builder> B common(B builder, Duration commandTimeout) {
        builder.autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .requestQueueSize(100_000)
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(Duration.ofSeconds(2))
                        .keepAlive(true)
                        .build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout));
        return builder;
    }

    /**
     * A new connection of its own (a blocking reader or a pipelining publisher must not share one) for commands on
     * {@code key}'s job type. On a cluster the client connects to a slot's node lazily, and with REJECT_COMMANDS a
     * command that meets the connection still being made is rejected; so the connection to the key's node is made
     * here, before the caller's first command, and from then on only a node that was up and went down rejects.
     */
    public synchronized QueueConnection connect(String key) {
        QueueConnection c;
        if (client instanceof RedisClusterClient cluster) {
            c = new QueueConnection(cluster.connect());
            warmUp(c, key);
        } else {
            c = new QueueConnection(((RedisClient) client).connect());
        }
        open.add(c);
        return c;
    }

    private static void warmUp(QueueConnection c, String key) {
        long deadline = System.nanoTime() + WARM_UP.toNanos();
        while (true) {
            try {
                c.sync().exists(key);
                return;
            } catch (RedisException e) {
                if (System.nanoTime() > deadline) {
                    LOG.warn(
                            "no connection to the cluster node of {} after {}; commands fail until it is reachable: {}",
                            key,
                            WARM_UP,
                            e.toString());
                    return;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * The token buckets of the gateways' shared rates (issue 29), on this client's server or cluster and with its
     * options (commands rejected at once while disconnected, the command timeout): Bucket4j's compare-and-swap store. A
     * bucket's key expires once it would be full again, so a gateway no longer used leaves nothing behind.
     */
    public io.github.bucket4j.distributed.proxy.ProxyManager<byte[]> bucketStore() {
        var builder = client instanceof RedisClusterClient cluster
                ? io.github.bucket4j.redis.lettuce.Bucket4jLettuce.casBasedBuilder(cluster)
                : io.github.bucket4j.redis.lettuce.Bucket4jLettuce.casBasedBuilder((RedisClient) client);
        return builder.expirationAfterWrite(
                        io.github.bucket4j.distributed.ExpirationAfterWriteStrategy
                                .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build();
    }

    public String uri() {
        return uri;
    }

    @Override
    public synchronized void close() {
        open.forEach(QueueConnection::close);
        open.clear();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
