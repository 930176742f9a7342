package dev.sendlog.service.resources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With group commit switched off each request commits alone, with the same answers. */
class WithoutGroupCommitTest {
    @RegisterExtension
    static final ServiceHarness SERVICE =
            new ServiceHarness("components", "API,MAINTENANCE", "accept.groupCommit", "false");

    @Test
    void acceptsReplaysAndConflictsAsWithGroupCommit() {
        String key = "solo-" + UUID.randomUUID();
        ApiResponse first = SERVICE.api()
                .post("/v1/messages", "client-a", "{\"to\":\"+4915100000018\",\"body\":\"b\"}", "Idempotency-Key", key);
        assertThat(first.status()).isEqualTo(202);
        ApiResponse replay = SERVICE.api()
                .post("/v1/messages", "client-a", "{\"to\":\"+4915100000018\",\"body\":\"b\"}", "Idempotency-Key", key);
        assertThat(replay.json().get("id")).isEqualTo(first.json().get("id"));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(SERVICE.api()
                        .post(
                                "/v1/messages",
                                "client-a",
                                "{\"to\":\"+4915100000018\",\"body\":\"c\"}",
                                "Idempotency-Key",
                                key)
                        .status())
                .isEqualTo(409);
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM messages"))
                .isEqualTo(1);
    }
}
