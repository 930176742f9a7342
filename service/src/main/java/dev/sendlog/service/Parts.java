package dev.sendlog.service;

import com.codahale.metrics.MetricRegistry;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.Lanes;
import dev.sendlog.service.config.SendlogConfiguration;
import dev.sendlog.service.db.Pools;
import dev.sendlog.service.faults.Faults;
import dev.sendlog.service.lifecycle.ShutdownSequence;
import dev.sendlog.service.log.EventStore;
import dev.sendlog.service.stats.Tallies;
import io.dropwizard.core.setup.Environment;
import java.time.InstantSource;
import java.util.Map;

/**
 * What the wiring of every component shares, made once by {@link SendlogApplication#run} before any component is
 * wired: the configuration, the pools, the log's store, the clock and faults (tests pass their own), the shutdown
 * sequence each component registers with, the lanes' layout, the per-minute tallies, this process's name, and the components an
 * operator may pause and resume (admin tasks {@code pause} and {@code resume}), which each component adds itself to.
 */
record Parts(
        SendlogConfiguration config,
        Environment env,
        Pools pools,
        EventStore events,
        EventCodec codec,
        InstantSource clock,
        Faults faults,
        ShutdownSequence shutdown,
        Lanes lanes,
        Tallies tallies,
        String instance,
        Map<String, Pausable> pausables) {
    MetricRegistry metrics() {
        return env.metrics();
    }
}
