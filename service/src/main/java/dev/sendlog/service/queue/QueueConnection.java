package dev.sendlog.service.queue;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/**
 * One connection to a job type's store, a single Redis or a Redis Cluster: the commands both offer (streams, keys,
 * INFO), pipelining, and the node that holds a key. On a cluster every key of a job type carries its hash tag, so
 * the whole job type lives on one node, and that node's memory is the job type's memory.
 */
public final class QueueConnection implements AutoCloseable {
    private final StatefulConnection<String, String> connection;
    private final RedisClusterCommands<String, String> sync;
    private final RedisClusterAsyncCommands<String, String> async;

    QueueConnection(StatefulRedisConnection<String, String> standalone) {
        this.connection = standalone;
        this.sync = standalone.sync();
        this.async = standalone.async();
    }

    QueueConnection(StatefulRedisClusterConnection<String, String> cluster) {
        this.connection = cluster;
        this.sync = cluster.sync();
        this.async = cluster.async();
    }

    public RedisClusterCommands<String, String> sync() {
        return sync;
    }

    public RedisClusterAsyncCommands<String, String> async() {
        return async;
    }

    /** Commands are queued until {@link #flushCommands()} (for one round trip per batch) when {@code false}. */
    public void setAutoFlushCommands(boolean autoFlush) {
        connection.setAutoFlushCommands(autoFlush);
    }

    public void flushCommands() {
        connection.flushCommands();
    }

    /** Commands on the server that holds {@code key}: itself for a single Redis, the slot's master on a cluster. */
    public RedisClusterCommands<String, String> nodeOf(String key) {
        if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
            if (node == null) {
                throw new IllegalStateException("no cluster node serves the slot of " + key);
            }
            return cluster.getConnection(node.getNodeId()).sync();
        }
        return sync;
    }

    @Override
    public void close() {
        connection.close();
    }
}
