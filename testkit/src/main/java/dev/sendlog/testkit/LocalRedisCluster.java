package dev.sendlog.testkit;

import dev.sendlog.infra.Directories;
import dev.sendlog.infra.RedisEndpoint;
import dev.sendlog.infra.RedisOptions;
import dev.sendlog.infra.RedisProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A Redis Cluster of the test's own: {@code masters} redis-server processes in cluster mode on free loopback ports,
 * the 16384 slots split evenly between them, joined with CLUSTER MEET (what {@code redis-cli --cluster create}
 * does, without needing redis-cli). No replicas. Closed, it stops the servers and deletes their files.
 */
public final class LocalRedisCluster implements AutoCloseable {
    private static final int SLOTS = 16_384;
    private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(60);

    private final List<Path> dirs = new ArrayList<>();
    private final List<RedisProcess> nodes = new ArrayList<>();

    private LocalRedisCluster() {}

    public static LocalRedisCluster start(int masters) {
        LocalRedisCluster cluster = new LocalRedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                Path dir = Directories.createTemp("redis-cluster-node-");
                cluster.dirs.add(dir);
                cluster.nodes.add(
                        RedisProcess.start(RedisOptions.inDirectory(dir).asClusterNode()));
            }
            cluster.form();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void form() {
        int n = nodes.size();
        for (int i = 0; i < n; i++) {
            int from = SLOTS * i / n;
            int to = SLOTS * (i + 1) / n;
            int[] slots = IntStream.range(from, to).toArray();
            try (Node node = new Node(nodes.get(i).endpoint())) {
                node.commands().clusterAddSlots(slots);
            }
        }
        try (Node first = new Node(nodes.get(0).endpoint())) {
            for (int i = 1; i < n; i++) {
                first.commands()
                        .clusterMeet(
                                nodes.get(i).endpoint().host(),
                                nodes.get(i).endpoint().port());
            }
        }
        long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
        for (RedisProcess p : nodes) {
            try (Node node = new Node(p.endpoint())) {
                while (!formed(node.commands().clusterInfo(), n)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the cluster did not form within " + FORMATION_TIMEOUT + ": "
                                + node.commands().clusterInfo());
                    }
                    sleep();
                }
            }
        }
    }

    private static boolean formed(String clusterInfo, int masters) {
        return clusterInfo.contains("cluster_state:ok")
                && clusterInfo.contains("cluster_known_nodes:" + masters)
                && clusterInfo.contains("cluster_slots_assigned:" + SLOTS);
    }

    private static void sleep() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the cluster formed", e);
        }
    }

    /** A node to give the client as the cluster's address (it learns the others from it). */
    public RedisEndpoint seed() {
        return nodes.get(0).endpoint();
    }

    public List<RedisEndpoint> nodes() {
        return nodes.stream().map(RedisProcess::endpoint).toList();
    }

    @Override
    public void close() {
        for (RedisProcess p : nodes) {
            p.close();
        }
        nodes.clear();
        dirs.forEach(Directories::deleteRecursively);
        dirs.clear();
    }

    /** A plain connection to one node, for forming the cluster and for tests that ask a node what it holds. */
    public static final class Node implements AutoCloseable {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;

        public Node(RedisEndpoint endpoint) {
            this.client = RedisClient.create(endpoint.uri());
            this.connection = client.connect();
        }

        public RedisCommands<String, String> commands() {
            return connection.sync();
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
