package dev.sendlog.service.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The send worker's retries of an acceptance the database refused (issue 24, item 21). */
class WriteRetriesTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aWriteThatFailsIsRetriedWithPausesUntilItSucceeds() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger rereads = new AtomicInteger();
        String result = WriteRetries.retry(
                Duration.ofSeconds(20),
                () -> {
                    if (attempts.incrementAndGet() < 3) {
                        throw new IllegalStateException("database unreachable");
                    }
                    return "recorded";
                },
                rereads::incrementAndGet);
        assertThat(result).isEqualTo("recorded");
        assertThat(attempts).hasValue(3);
        assertThat(rereads).as("the state is read again before each retry").hasValue(2);
    }

    /**
     * A worker interrupted at shutdown: each pause used to end at once with the interrupt set again, so the worker
     * tried the write and read the message in a busy loop until the 20 s limit. Now it stops after its one attempt.
     */
    @Test
    void anInterruptedWorkerStopsRetryingAtOnceAndKeepsTheInterrupt() {
        AtomicInteger attempts = new AtomicInteger();
        Thread.currentThread().interrupt();
        long started = System.nanoTime();
        assertThatThrownBy(() -> WriteRetries.retry(
                        Duration.ofSeconds(20),
                        () -> {
                            attempts.incrementAndGet();
                            throw new IllegalStateException("database unreachable");
                        },
                        () -> {}))
                .hasMessage("database unreachable");
        assertThat(attempts).hasValue(1);
        assertThat(Thread.currentThread().isInterrupted())
                .as("the interrupt is left for the caller")
                .isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void anInterruptDuringAPauseEndsTheRetries() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger attemptsWhenInterrupted = new AtomicInteger(-1);
        Thread worker = Thread.currentThread();
        Thread interrupter = Thread.ofPlatform().start(() -> {
            // Interrupt the worker while it pauses between attempts.
            while (attempts.get() == 0 || worker.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
            attemptsWhenInterrupted.set(attempts.get());
            worker.interrupt();
        });
        assertThatThrownBy(() -> WriteRetries.retry(
                        Duration.ofSeconds(20),
                        () -> {
                            attempts.incrementAndGet();
                            throw new IllegalStateException("database unreachable");
                        },
                        () -> {}))
                .hasMessage("database unreachable");
        // Read and clear the interrupt before joining: join() would throw at once on the interrupt the retries kept.
        boolean interruptKept = Thread.interrupted();
        interrupter.join();
        assertThat(attempts.get())
                .as("no attempt after the interrupted pause, but the one whose pause had just ended")
                .isLessThanOrEqualTo(attemptsWhenInterrupted.get() + 1);
        assertThat(interruptKept).as("the interrupt is left for the caller").isTrue();
    }

    @Test
    void theLastFailureIsThrownOnceTheLimitHasPassed() {
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> WriteRetries.retry(
                        Duration.ofMillis(200),
                        () -> {
                            attempts.incrementAndGet();
                            throw new IllegalStateException("failure " + attempts.get());
                        },
                        () -> {}))
                .hasMessage("failure " + attempts.get());
        assertThat(attempts.get()).as("50, 100, 200 ms pauses within the limit").isBetween(2, 5);
    }
}
