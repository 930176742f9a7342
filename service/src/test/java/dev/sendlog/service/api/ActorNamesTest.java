package dev.sendlog.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sendlog.events.Accepted;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Compacted;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.StoredEvent;
import dev.sendlog.service.auth.Role;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The actor a caller is shown (issue 24, item 12), including inside a snapshot that could not be opened back. */
class ActorNamesTest {
    @Test
    void aClientSeesTheRoleOfEveryRecordedActor() {
        assertThat(ActorNames.shown("worker-node-7.internal-6022", Role.CLIENT)).isEqualTo("worker");
        assertThat(ActorNames.shown("poller-local-6022", Role.CLIENT)).isEqualTo("poller");
        assertThat(ActorNames.shown("callbacks-local-6022", Role.CLIENT)).isEqualTo("callbacks");
        assertThat(ActorNames.shown("timer", Role.CLIENT)).isEqualTo("timer");
        assertThat(ActorNames.shown("api", Role.CLIENT)).isEqualTo("api");
        assertThat(ActorNames.shown("admin:ops-admin", Role.CLIENT)).isEqualTo("support");
        assertThat(ActorNames.shown("support:alice", Role.CLIENT)).isEqualTo("support");
        assertThat(ActorNames.shown("client:acme-client", Role.CLIENT)).isEqualTo("client");
        assertThat(ActorNames.shown("worker-node-7.internal-6022", Role.SUPPORT))
                .isEqualTo("worker-node-7.internal-6022");
        assertThat(ActorNames.shown("admin:ops-admin", Role.ADMIN)).isEqualTo("admin:ops-admin");
    }

    @Test
    void insideASnapshotAClientSeesRolesToo() {
        UUID id = UUID.randomUUID();
        Instant at = Instant.parse("2026-11-30T09:31:00Z");
        Compacted snapshot = new Compacted(List.of(
                new StoredEvent(id, 1, at, "api", new Accepted("acme", "sim")),
                new StoredEvent(
                        id, 3, at, "worker-local-6022", new Claimed(1, "worker-local-6022", at.plusSeconds(30)))));
        EventCodec codec = new EventCodec();
        JsonNode client = ActorNames.shownData("COMPACTED", codec.toNode(snapshot), Role.CLIENT);
        assertThat(client.toString()).doesNotContain("6022");
        assertThat(client.get("events").get(1).get("actor").asText()).isEqualTo("worker");
        assertThat(client.get("events").get(1).get("data").get("worker").asText())
                .isEqualTo("worker");
        assertThat(ActorNames.shownData("COMPACTED", codec.toNode(snapshot), Role.SUPPORT)
                        .toString())
                .contains("worker-local-6022");
    }
}
