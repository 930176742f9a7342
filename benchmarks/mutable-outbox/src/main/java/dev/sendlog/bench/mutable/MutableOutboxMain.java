package dev.sendlog.bench.mutable;

import com.zaxxer.hikari.HikariDataSource;
import dev.sendlog.bench.baseline.Database;
import dev.sendlog.bench.baseline.Options;
import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.ServeUntilKilled;
import io.lettuce.core.RedisClient;
import java.util.Map;

/**
 * Runs the mutable-outbox BASELINE as one process until it is killed. The pool is {@code workers + 10}
 * connections (one per worker for its status update, and 10 for accepts, as sendlog's api pool has).
 */
public final class MutableOutboxMain {
    private MutableOutboxMain() {
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args, Map.of(
                "port", "0", "jdbc-url", "jdbc:postgresql://127.0.0.1:5432/mutable_outbox", "db-user", "postgres",
                "redis", "redis://127.0.0.1:6379", "prefix", "mutable-outbox:", "provider-url", "http://127.0.0.1:9090",
                "provider-token", "sim-token", "workers", "16", "batch", "500", "tick-ms", "100"));
        int workers = o.number("workers");
        HikariDataSource pool = Database.pool("mutable-outbox", o.text("jdbc-url"), o.text("db-user"), workers + 10);
        RedisClient redis = RedisClient.create(o.text("redis"));
        ProviderClient provider = new ProviderClient(o.text("provider-url"), o.text("provider-token"), workers);
        MutableOutbox outbox = new MutableOutbox(pool, redis, provider, new MutableOutbox.Settings(
                workers, o.number("batch"), o.number("tick-ms"), o.text("prefix") + "queue"));
        outbox.start();
        ServeUntilKilled.serve("mutable-outbox BASELINE", o.number("port"), outbox::accept,
                outbox, provider, redis::shutdown, pool);
    }
}
