package dev.sendlog.service.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A steady load for failover tests: batches of 20 every 100 ms (~200 msg/s) through the API on a virtual thread,
 * keeping every id that got its 202, while pollers die and come back. {@link #stop()} ends it and fails the test if
 * any submit failed.
 */
public final class SteadyLoad implements AutoCloseable {
    private final List<String> accepted = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean loading = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread thread;

    private SteadyLoad(ServiceHarness service) {
        thread = Thread.ofVirtual().start(() -> {
            try {
                while (loading.get()) {
                    accepted.addAll(Messages.submit(service, 20));
                    Thread.sleep(100); // pacing: the load is meant to be steady, not as fast as possible
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
    }

    public static SteadyLoad start(ServiceHarness service) {
        return new SteadyLoad(service);
    }

    /** Stops the load; every submit must have got its 202. Returns the accepted ids. */
    public List<String> stop() throws InterruptedException {
        close();
        assertThat(failure.get()).as("every submit got its 202").isNull();
        return List.copyOf(accepted);
    }

    @Override
    public void close() throws InterruptedException {
        loading.set(false);
        thread.join();
    }
}
