package dev.sendlog.service.metrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import com.codahale.metrics.Timer;
import java.util.concurrent.TimeUnit;

/**
 * Timers and histograms of the pipeline's stages keep the last minute exactly (a sliding time window): cheaper
 * per update under contention than the default decaying reservoir, and "the last minute per stage" is what the
 * timing breakdown shows.
 */
public final class Metrics {
    public static final int WINDOW_SECONDS = 60;

    private Metrics() {}

    public static Timer timer(MetricRegistry registry, String name) {
        return registry.timer(
                name, () -> new Timer(new SlidingTimeWindowArrayReservoir(WINDOW_SECONDS, TimeUnit.SECONDS)));
    }

    public static Histogram histogram(MetricRegistry registry, String name) {
        return registry.histogram(
                name, () -> new Histogram(new SlidingTimeWindowArrayReservoir(WINDOW_SECONDS, TimeUnit.SECONDS)));
    }
}
