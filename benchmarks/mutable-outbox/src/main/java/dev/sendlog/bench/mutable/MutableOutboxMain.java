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
 * connections (one per worker for its status update, and 10 for accepts, as sendlog's api pool has), unless
 * {@code --pool} names a size: the harness's open-loop scenario runs 256 workers, and 266 connections do not fit in
 * a default PostgreSQL's 100.
 */
public final class MutableOutboxMain {
    private MutableOutboxMain() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(
                args,
                Map.ofEntries(
                        Map.entry("port", "0"),
                        Map.entry("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/mutable_outbox"),
                        Map.entry("db-user", "postgres"),
                        Map.entry("redis", "redis://127.0.0.1:6379"),
                        Map.entry("prefix", "mutable-outbox:"),
                        Map.entry("provider-url", "http://127.0.0.1:9090"),
                        Map.entry("provider-token", "sim-token"),
                        Map.entry("workers", "16"),
                        Map.entry("batch", "500"),
                        Map.entry("tick-ms", "100"),
                        Map.entry("pool", "0")));
        int workers = o.number("workers");
        int poolSize = o.number("pool") > 0 ? o.number("pool") : workers + 10;
        HikariDataSource pool = Database.pool("mutable-outbox", o.text("jdbc-url"), o.text("db-user"), poolSize);
        RedisClient redis = RedisClient.create(o.text("redis"));
        ProviderClient provider = new ProviderClient(o.text("provider-url"), o.text("provider-token"), workers);
        MutableOutbox outbox = new MutableOutbox(
                pool,
                redis,
                provider,
                new MutableOutbox.Settings(
                        workers, o.number("batch"), o.number("tick-ms"), o.text("prefix") + "queue"));
        outbox.start();
        ServeUntilKilled.serve(
                "mutable-outbox BASELINE", o.number("port"), outbox::accept, outbox, provider, redis::shutdown, pool);
    }
}
