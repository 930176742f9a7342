package dev.sendlog.service.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sendlog.testkit.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Publishing through the server-side script: every job once, in order, with its fields, across chunk boundaries. */
class JobStreamTest {
    private final String prefix = TestRedis.prefix();
    private RedisConnections redis;
    private JobStream stream;

    @BeforeEach
    void start() {
        redis = new RedisConnections(TestRedis.endpoint().uri(), Duration.ofSeconds(5));
        stream = new JobStream(redis, StreamKeys.send(prefix), StreamKeys.SEND_GROUP, "test");
        stream.ensureGroup();
    }

    @AfterEach
    void stop() {
        redis.close();
        TestRedis.deleteKeys(TestRedis.endpoint(), prefix);
    }

    @Test
    void aBatchLargerThanOneScriptCallArrivesWholeInOrderWithItsFields() {
        List<Map<String, String>> jobs = new ArrayList<>();
        for (int i = 0; i < 1203; i++) {
            Map<String, String> fields = new LinkedHashMap<>();
            fields.put("j", "job-" + i);
            if (i % 3 == 0) {
                fields.put("extra", "value with spaces|and pipes " + i);
            }
            jobs.add(fields);
        }

        List<String> ids = stream.publish(jobs);

        assertThat(ids).hasSize(jobs.size()).doesNotHaveDuplicates();
        assertThat(stream.length()).isEqualTo(jobs.size());
        List<StreamEntry> read = new ArrayList<>();
        while (read.size() < jobs.size()) {
            List<StreamEntry> page = stream.read(500, Duration.ofSeconds(1));
            assertThat(page).as("entries still to read").isNotEmpty();
            read.addAll(page);
        }
        assertThat(read).extracting(StreamEntry::id).containsExactlyElementsOf(ids);
        assertThat(read).extracting(StreamEntry::fields).containsExactlyElementsOf(jobs);
    }

    @Test
    void aRefusedPublishThrowsInsteadOfReportingJobsItDidNotAppend() {
        // A key of another type where the stream should be: the server refuses the XADD, the caller must hear it.
        try (QueueConnection c = redis.connect(StreamKeys.send(prefix))) {
            c.sync().del(StreamKeys.send(prefix));
            c.sync().set(StreamKeys.send(prefix), "not a stream");
        }

        assertThatThrownBy(() -> stream.publish(List.of(Map.of("j", "a"), Map.of("j", "b"))))
                .hasMessageContaining("WRONGTYPE");
    }
}
