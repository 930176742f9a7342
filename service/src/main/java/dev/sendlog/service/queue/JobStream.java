package dev.sendlog.service.queue;

import io.lettuce.core.Consumer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Redis stream with one consumer group: the queue of one job type. Publishing is one script call per
 * chunk of a batch, all flushed together; reading blocks on a connection of its own; acknowledging removes the entry
 * (XACK + XDEL), so an acknowledged job leaves nothing behind. If the stream or its group vanished
 * (Redis restarted empty), reading recreates them: the lost jobs come back from the log by timer.
 */
public final class JobStream {
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(5);

    private final String key;
    private final String group;
    private final String consumer;
    private final QueueConnection publisher;
    private final QueueConnection reader;
    private final QueueConnection acker;

    /**
     * @param key      the stream key, hash-tagged so a job type stays on one cluster node
     * @param consumer this process's name in the group; entries it leaves unacknowledged are reclaimed by others
     */
    public JobStream(RedisConnections redis, String key, String group, String consumer) {
        this.key = key;
        this.group = group;
        this.consumer = consumer;
        this.publisher = redis.connect(key);
        this.publisher.setAutoFlushCommands(false);
        this.reader = redis.connect(key);
        this.acker = redis.connect(key);
    }

    public String key() {
        return key;
    }

    /**
     * One XADD per job, run by the server in a loop: the arguments are, per job, its field count and then its
     * field/value pairs. One command instead of one per job costs Redis a single dispatch and the client a single
     * command object per chunk, which is what kept the poller's publish stage expensive when XADDs were pipelined one
     * by one. EVAL (not EVALSHA) so that a Redis restarted empty, which forgot its script cache, needs no reload.
     */
    private static final String PUBLISH_SCRIPT = """
            local ids = {}
            local i = 1
            while i <= #ARGV do
              local n = tonumber(ARGV[i])
              local args = {'XADD', KEYS[1], '*'}
              for k = 1, 2 * n do
                args[3 + k] = ARGV[i + k]
              end
              ids[#ids + 1] = redis.call(unpack(args))
              i = i + 1 + 2 * n
            end
            return ids""";
    /** Jobs per script call: a call holds Redis for its duration, so a large batch goes in a few calls. */
    private static final int JOBS_PER_CALL = 500;

    /**
     * Appends the jobs with one round trip (one script call per {@value #JOBS_PER_CALL} jobs); returns their entry
     * ids in order, or throws if any call failed. A failed call may have appended some of its jobs: the caller
     * publishes them again, and a job seen twice is refused by the worker's claim.
     */
    public List<String> publish(List<Map<String, String>> jobs) {
        return publishStart(jobs).await();
    }

    /** A publish whose commands are on their way to Redis; {@link #await} waits for them. */
    public static final class Publishing {
        private final int jobs;
        private final List<RedisFuture<List<Object>>> futures;

        private Publishing(int jobs, List<RedisFuture<List<Object>>> futures) {
            this.jobs = jobs;
            this.futures = futures;
        }

        /** The jobs' entry ids in order; throws if any call failed or did not answer within the publish timeout. */
        public List<String> await() {
            if (futures.isEmpty()) {
                return List.of();
            }
            if (!LettuceFutures.awaitAll(
                    PUBLISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS, futures.toArray(RedisFuture[]::new))) {
                throw new io.lettuce.core.RedisCommandTimeoutException("publishing " + jobs + " jobs timed out");
            }
            List<String> ids = new ArrayList<>(jobs);
            for (RedisFuture<List<Object>> f : futures) {
                try {
                    for (Object id : f.get()) {
                        ids.add((String) id);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while publishing", e);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            }
            return ids;
        }
    }

    /**
     * Sends the jobs (one round trip, as {@link #publish}) without waiting for the answer, so the caller can do other
     * work meanwhile; nothing counts as published until {@link Publishing#await} returns.
     */
    public synchronized Publishing publishStart(List<Map<String, String>> jobs) {
        List<RedisFuture<List<Object>>> futures = new ArrayList<>();
        if (jobs.isEmpty()) {
            return new Publishing(0, futures);
        }
        String[] keys = {key};
        for (int from = 0; from < jobs.size(); from += JOBS_PER_CALL) {
            List<String> args = new ArrayList<>();
            for (Map<String, String> job : jobs.subList(from, Math.min(jobs.size(), from + JOBS_PER_CALL))) {
                args.add(Integer.toString(job.size()));
                job.forEach((field, value) -> {
                    args.add(field);
                    args.add(value);
                });
            }
            futures.add(
                    publisher.async().eval(PUBLISH_SCRIPT, ScriptOutputType.MULTI, keys, args.toArray(String[]::new)));
        }
        publisher.flushCommands();
        return new Publishing(jobs.size(), futures);
    }

    /** Waits up to {@code block} for new jobs for this consumer. */
    public List<StreamEntry> read(int count, Duration block) {
        try {
            return entries(reader.sync()
                    .xreadgroup(
                            Consumer.from(group, consumer),
                            XReadArgs.Builder.count(count).block(block),
                            XReadArgs.StreamOffset.lastConsumed(key)));
        } catch (RedisCommandExecutionException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("NOGROUP")) {
                ensureGroup();
                return List.of();
            }
            throw e;
        }
    }

    /** Takes over entries other consumers (crashed ones) left unacknowledged for at least {@code minIdle}. */
    public List<StreamEntry> reclaim(Duration minIdle, int count) {
        try {
            ClaimedMessages<String, String> claimed = acker.sync()
                    .xautoclaim(
                            key,
                            XAutoClaimArgs.Builder.xautoclaim(Consumer.from(group, consumer), minIdle, "0-0")
                                    .count(count));
            return entries(claimed.getMessages());
        } catch (RedisCommandExecutionException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("NOGROUP")) {
                ensureGroup();
                return List.of();
            }
            throw e;
        }
    }

    /** Acknowledges and deletes the entries: nothing of an acknowledged job stays in Redis. */
    public void ack(List<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        String[] array = ids.toArray(String[]::new);
        RedisFuture<Long> acked = acker.async().xack(key, group, array);
        RedisFuture<Long> deleted = acker.async().xdel(key, array);
        LettuceFutures.awaitAll(PUBLISH_TIMEOUT, acked, deleted);
    }

    /** Entries in the stream (unread plus read but not yet acknowledged). */
    public long length() {
        return acker.sync().xlen(key);
    }

    /** Creates the stream and its group if missing (from the start of the stream, so nothing in it is skipped). */
    public void ensureGroup() {
        try {
            acker.sync()
                    .xgroupCreate(XReadArgs.StreamOffset.from(key, "0"), group, XGroupCreateArgs.Builder.mkstream());
        } catch (RedisBusyException e) {
            // BUSYGROUP: it exists, which is all we wanted.
        }
    }

    private static List<StreamEntry> entries(List<StreamMessage<String, String>> messages) {
        List<StreamEntry> entries = new ArrayList<>(messages.size());
        for (StreamMessage<String, String> m : messages) {
            // A deleted-but-pending entry comes back with no body; it has nothing left to do.
            entries.add(new StreamEntry(m.getId(), m.getBody() == null ? Map.of() : m.getBody()));
        }
        return entries;
    }
}
