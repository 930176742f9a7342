package dev.sendlog.service.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.Sql;
import dev.sendlog.testkit.LogicalPostgres;
import dev.sendlog.testkit.TestDatabase;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every poller on the change-data-capture feed prepares it when it starts, so pollers started together (a fleet's
 * first start, as in the chaos run) race to create the one publication: each must start, and one publication exist.
 * The loser of the race waits on the catalog's unique index and gets a unique violation, not "already exists".
 */
class FeedSlotPrepareTest {
    private static final int POLLERS = 8;
    private static final int ROUNDS = 20;
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = TestDatabase.create(LogicalPostgres.endpoint());
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    @Test
    void pollersStartingTogetherAllPrepareTheFeedAndOnePublicationExists() throws Exception {
        ExecutorService pollers = Executors.newFixedThreadPool(POLLERS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String publication = "sendlog_race_" + round;
                CyclicBarrier together = new CyclicBarrier(POLLERS);
                List<Future<?>> started = new ArrayList<>();
                for (int i = 0; i < POLLERS; i++) {
                    started.add(pollers.submit(() -> {
                        try (Connection own = db.connect()) { // a connection each, as each process has its own
                            FeedSlot slot =
                                    new FeedSlot(DSL.using(own, SQLDialect.POSTGRES), "sendlog_feed", publication);
                            together.await(30, TimeUnit.SECONDS);
                            slot.prepare();
                        }
                        return null;
                    }));
                }
                for (Future<?> poller : started) {
                    poller.get(60, TimeUnit.SECONDS); // a poller whose prepare threw fails the test here
                }
                assertThat(Sql.count(
                                db.dataSource(),
                                "SELECT count(*) FROM pg_publication WHERE pubname = '" + publication + "'"))
                        .as("round %d", round)
                        .isEqualTo(1);
            }
        } finally {
            pollers.shutdownNow();
        }
    }
}
