package dev.sendlog.service.publish;

import dev.sendlog.service.support.ServiceHarness;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link TenThousandMessages} with the poller tailing the log by query (the default feed). */
class DispatchEndToEndTest extends TenThousandMessages {
    @RegisterExtension
    static final ServiceHarness SERVICE = new ServiceHarness().simulator(simulator());

    @Override
    ServiceHarness service() {
        return SERVICE;
    }
}
