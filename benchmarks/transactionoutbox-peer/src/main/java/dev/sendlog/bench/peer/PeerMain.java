package dev.sendlog.bench.peer;

import com.zaxxer.hikari.HikariDataSource;
import dev.sendlog.bench.baseline.Database;
import dev.sendlog.bench.baseline.Options;
import dev.sendlog.bench.baseline.ProviderClient;
import dev.sendlog.bench.baseline.ServeUntilKilled;
import java.time.Duration;
import java.util.Map;

/**
 * Runs the transactionoutbox peer as one process until it is killed. The pool is {@code workers + 10}
 * connections: the library holds a connection (and the entry's row lock) for the whole provider call, so each
 * worker thread needs one, and 10 are left for accepts, as sendlog's api pool has. {@code --pool} names another
 * size: the harness's open-loop scenario runs 256 workers, and 266 connections do not fit in a default PostgreSQL's
 * 100; with fewer connections than workers, at most that many provider calls are in flight.
 */
public final class PeerMain {
    private PeerMain() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(
                args,
                Map.of(
                        "port",
                        "0",
                        "jdbc-url",
                        "jdbc:postgresql://127.0.0.1:5432/txoutbox_peer",
                        "db-user",
                        "postgres",
                        "provider-url",
                        "http://127.0.0.1:9090",
                        "provider-token",
                        "sim-token",
                        "workers",
                        "16",
                        "attempt-frequency-s",
                        "30",
                        "pool",
                        "0"));
        int workers = o.number("workers");
        int poolSize = o.number("pool") > 0 ? o.number("pool") : workers + 10;
        HikariDataSource pool = Database.pool("txoutbox-peer", o.text("jdbc-url"), o.text("db-user"), poolSize);
        ProviderClient provider = new ProviderClient(o.text("provider-url"), o.text("provider-token"), workers);
        TransactionOutboxPeer peer =
                new TransactionOutboxPeer(pool, provider, workers, Duration.ofSeconds(o.number("attempt-frequency-s")));
        ServeUntilKilled.serve("transactionoutbox peer", o.number("port"), peer::accept, peer, provider, pool);
    }
}
