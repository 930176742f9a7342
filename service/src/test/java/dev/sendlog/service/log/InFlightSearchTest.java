package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.compactor.PartitionManager;
import dev.sendlog.events.Claimed;
import dev.sendlog.events.Dead;
import dev.sendlog.events.MessageEvent;
import dev.sendlog.events.MessageIds;
import dev.sendlog.events.ProviderAccepted;
import dev.sendlog.events.Receipt;
import dev.sendlog.events.ReceiptKind;
import dev.sendlog.events.RedriveReason;
import dev.sendlog.events.Redriven;
import dev.sendlog.events.Shards;
import dev.sendlog.projections.MessageFold;
import dev.sendlog.projections.MessageState;
import dev.sendlog.projections.MessageStatus;
import dev.sendlog.service.support.Messages;
import dev.sendlog.testkit.TestDatabaseExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Search by a status in flight reads each candidate with the final status of its newest row and folds only the messages
 * not final by it. What that must not get wrong: a message re-opened after a final status (support re-drove a DEAD
 * one) is in flight again although a row of its history carries DEAD; a message whose newest row changed nothing after
 * its final status (a late intermediate receipt after DELIVERED) is final although that row carries none; and a message
 * passed over still counts against the page's bound, so the next page starts after it.
 */
class InFlightSearchTest {
    @RegisterExtension
    static final TestDatabaseExtension DB = new TestDatabaseExtension();

    private static final String WORKER = "worker-1";

    /** Each test's messages are a tenant's of their own: the class shares one database. */
    private final String tenant = "t-" + UUID.randomUUID();

    private final MessageIds ids = new MessageIds(InstantSource.system());
    private DSLContext dsl;
    private EventAppender appender;
    private MessageReader reader;

    @BeforeEach
    void start() throws Exception {
        dsl = DSL.using(DB.dataSource(), SQLDialect.POSTGRES);
        EventStore store = EventStore.of(DB.dataSource());
        new PartitionManager(DB.dataSource(), Duration.ofSeconds(5)).ensure(LocalDate.now(ZoneOffset.UTC), 1);
        appender = new EventAppender(dsl, store, 1, new MetricRegistry(), "append");
        appender.start();
        reader = new MessageReader(dsl, store);
    }

    @AfterEach
    void stop() throws Exception {
        appender.stop();
    }

    @Test
    void aMessageIsFoundByTheStatusItHasNowWhateverItsOlderRowsSay() {
        UUID accepted = message();
        UUID sent = message();
        live(sent, claimed(), providerAccepted(sent));
        UUID delivered = message();
        live(delivered, claimed(), providerAccepted(delivered), receipt(delivered, ReceiptKind.DELIVERED));
        UUID deliveredThenNews = message();
        live(
                deliveredThenNews,
                claimed(),
                providerAccepted(deliveredThenNews),
                receipt(deliveredThenNews, ReceiptKind.DELIVERED),
                receipt(deliveredThenNews, ReceiptKind.INTERMEDIATE));
        UUID redriven = message();
        live(
                redriven,
                claimed(),
                s -> new Dead(1, "attempt limit 1 reached"),
                s -> new Redriven(2, RedriveReason.ADMIN));

        assertThat(newestRowFinal(delivered))
                .as("the receipt that made it final carries DELIVERED")
                .isEqualTo((short) 1);
        assertThat(newestRowFinal(deliveredThenNews))
                .as("the late receipt changed nothing")
                .isNull();
        assertThat(reader.find(deliveredThenNews).orElseThrow().state().status())
                .isEqualTo(MessageStatus.DELIVERED);
        MessageStatus reopened = reader.find(redriven).orElseThrow().state().status();
        assertThat(reopened).isNotEqualTo(MessageStatus.DEAD);
        assertThat(reopened.isFinal()).isFalse();

        assertThat(found(MessageStatus.SENT)).containsExactly(sent);
        assertThat(found(reopened)).contains(redriven);
        assertThat(found(MessageStatus.ACCEPTED)).contains(accepted);
        assertThat(found(MessageStatus.DELIVERED)).containsExactlyInAnyOrder(delivered, deliveredThenNews);
        assertThat(found(MessageStatus.DEAD)).as("its DEAD row is stale").isEmpty();
    }

    @Test
    void finalMessagesPassedOverCountAgainstThePageSoTheNextPageGoesOnAfterThem() {
        UUID sent = message();
        live(sent, claimed(), providerAccepted(sent));
        List<UUID> dead = new ArrayList<>();
        for (int i = 0; i < MessageReader.IN_FLIGHT_SCAN_MAX + 10; i++) {
            dead.add(message());
        }
        liveAll(dead, claimed(), s -> new Dead(1, "attempt limit 1 reached"));

        SearchResult first = reader.search(query(MessageStatus.SENT, null));
        assertThat(first.items()).isEmpty();
        assertThat(first.next()).as("the page stopped at its bound").isNotNull();
        assertThat(first.next()).isEqualTo(dead.get(10));
        SearchResult second = reader.search(query(MessageStatus.SENT, first.next()));
        assertThat(second.items()).extracting(d -> d.row().id()).containsExactly(sent);
        assertThat(second.next()).isNull();
    }

    private List<UUID> found(MessageStatus status) {
        return reader.search(query(status, null)).items().stream()
                .map(d -> d.row().id())
                .toList();
    }

    private SearchQuery query(MessageStatus status, UUID before) {
        return new SearchQuery(tenant, null, null, status, null, null, 50, before);
    }

    private Short newestRowFinal(UUID id) {
        return dsl.resultQuery("SELECT status FROM message_events WHERE message_id = ? ORDER BY seq DESC LIMIT 1", id)
                .fetchOne(0, Short.class);
    }

    private UUID message() {
        UUID id = ids.next();
        Messages.insertRow(dsl, id, tenant, 16);
        return id;
    }

    private static Function<MessageState, MessageEvent> claimed() {
        return s -> new Claimed(s.attempt(), WORKER, Instant.now().plusSeconds(60));
    }

    private static Function<MessageState, MessageEvent> providerAccepted(UUID id) {
        return s -> new ProviderAccepted(s.attempt(), "sim", "p-" + id, 1, 1);
    }

    private static Function<MessageState, MessageEvent> receipt(UUID id, ReceiptKind kind) {
        return s -> new Receipt(kind, "sim", "p-" + id, kind.name(), Instant.now(), null, 0);
    }

    @SafeVarargs
    private void live(UUID id, Function<MessageState, MessageEvent>... steps) {
        liveAll(List.of(id), steps);
    }

    /** Appends each step to every message, in one append for all of them, as a writer decides it from the fold. */
    @SafeVarargs
    private void liveAll(List<UUID> messages, Function<MessageState, MessageEvent>... steps) {
        Map<UUID, MessageDetails> found = reader.findMany(messages);
        List<NewEvent> events = new ArrayList<>();
        for (UUID id : messages) {
            MessageState state = found.get(id).state();
            for (Function<MessageState, MessageEvent> step : steps) {
                NewEvent event = new NewEvent(
                                id, state.nextSeq(), Shards.of(id, 16), WORKER, Instant.now(), step.apply(state))
                        .deciding(state, tenant);
                events.add(event);
                state = MessageFold.evolve(state, event.stored());
            }
        }
        for (int from = 0; from < events.size(); from += 500) {
            List<NewEvent> chunk = events.subList(from, Math.min(events.size(), from + 500));
            assertThat(appender.append(chunk, null)).hasSize(chunk.size());
        }
    }
}
