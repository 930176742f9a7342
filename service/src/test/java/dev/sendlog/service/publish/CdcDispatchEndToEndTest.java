package dev.sendlog.service.publish;

import dev.sendlog.service.support.ServiceHarness;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link TenThousandMessages} with the poller reading a logical replication slot ({@code pipeline.feed: cdc}). */
class CdcDispatchEndToEndTest extends TenThousandMessages {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness().cdcFeed().simulator(simulator());

    @Override
    ServiceHarness service() {
        return SERVICE;
    }
}
