package dev.sendlog.service.badinput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.sendlog.service.receipts.CallbackSignature;
import dev.sendlog.service.receipts.CallbackWorker;
import dev.sendlog.service.resources.CallbackResource;
import dev.sendlog.service.support.ApiResponse;
import dev.sendlog.service.support.ServiceHarness;
import dev.sendlog.service.support.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * What outside input does to the log (issue 24, item 14): text a provider sent is logged escaped, on one line, so it
 * cannot forge a line of ours; unsigned callbacks, which anyone can send, are each counted and logged sampled.
 */
class LoggedInputTest {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness();

    /** The lines one class logs from now until {@link #close()}. */
    private static final class Captured implements AutoCloseable {
        private final Logger logger;
        private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

        Captured(Class<?> source) {
            LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
            logger = context.getLogger(source);
            appender.setContext(context);
            appender.start();
            logger.addAppender(appender);
        }

        List<String> lines(String containing) {
            synchronized (appender.list) {
                return appender.list.stream()
                        .map(ILoggingEvent::getFormattedMessage)
                        .filter(m -> m.contains(containing))
                        .toList();
            }
        }

        @Override
        public void close() {
            logger.detachAppender(appender);
            appender.stop();
        }
    }

    private static long rejectedSignatures() {
        return SERVICE.admin()
                .get("/metrics", null)
                .json()
                .path("counters")
                .path("callbacks.signature.rejected")
                .path("count")
                .asLong();
    }

    private static ApiResponse unsigned(String body, String... signature) {
        return SERVICE.api()
                .postBytes(
                        "/v1/callbacks/sim",
                        null,
                        "application/json",
                        body.getBytes(StandardCharsets.UTF_8),
                        signature);
    }

    @Test
    void aStatusWithLineBreaksIsLoggedEscapedOnOneLine() {
        // JSON escapes for: a newline and a forged line, a carriage return, NEL, the line separator, a tab, a quote.
        String status = "NEWWORD\\n2026-12-02 11:29:00,000 INFO  [main] dev.sendlog.service.auth: admin key accepted"
                + "\\r\\u0085\\u2028\\t\\\"end";
        byte[] body = ("{\"id\":\"p1\",\"status\":\"" + status + "\",\"timestamp\":\"2611300931\"}")
                .getBytes(StandardCharsets.UTF_8);
        try (Captured log = new Captured(CallbackWorker.class)) {
            ApiResponse r = SERVICE.api()
                    .postBytes(
                            "/v1/callbacks/sim",
                            null,
                            "application/json",
                            body,
                            "X-Signature",
                            CallbackSignature.sign("sim-secret", body));
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            long inboxId = r.json().get("stored").asLong();
            String line = await().atMost(Duration.ofSeconds(30))
                    .until(() -> log.lines("inbox_id=" + inboxId + " "), lines -> !lines.isEmpty())
                    .getFirst();
            assertThat(line).doesNotContain("\n", "\r", "\u0085", "\u2028", "\t");
            assertThat(line)
                    .contains("reason=\"unmapped status NEWWORD\\n2026-12-02 11:29:00,000 INFO  [main]")
                    .contains("\\r\\u0085\\u2028\\t\\\"end\"");
        }
        // The parked row keeps the status as sent: only the log line is escaped.
        assertThat(Sql.count(
                        SERVICE.dataSource(),
                        "SELECT count(*) FROM parked_input WHERE reason LIKE '%NEWWORD' || chr(10) || '2026%'"))
                .isEqualTo(1);
    }

    @Test
    void unsignedCallbacksAreEachCountedAndLoggedAtMostOncePerInterval() {
        // Past any line an earlier refusal logged: the next refusal is logged.
        SERVICE.clock().advance(Duration.ofSeconds(11));
        long before = rejectedSignatures();
        long stored = Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox");
        try (Captured log = new Captured(CallbackResource.class)) {
            for (int i = 0; i < 200; i++) {
                ApiResponse r = i % 2 == 0
                        ? unsigned("{\"id\":\"p" + i + "\"}")
                        : unsigned("{\"id\":\"p" + i + "\"}", "X-Signature", "sha256=" + "0".repeat(64));
                assertThat(r.status()).isEqualTo(401);
            }
            assertThat(rejectedSignatures()).isEqualTo(before + 200);
            assertThat(log.lines("callback refused")).hasSize(1);

            SERVICE.clock().advance(Duration.ofSeconds(11));
            assertThat(unsigned("{}").status()).isEqualTo(401);
            List<String> lines = log.lines("callback refused");
            assertThat(lines).hasSize(2);
            assertThat(lines.getLast())
                    .contains("not_logged_since_last=199")
                    .contains("refused_total=" + (before + 201));
        }
        assertThat(Sql.count(SERVICE.dataSource(), "SELECT count(*) FROM callback_inbox"))
                .as("nothing stored")
                .isEqualTo(stored);
    }
}
