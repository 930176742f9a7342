package dev.sendlog.testkit;

import dev.sendlog.infra.FreePorts;

/** Free TCP ports for servers a test starts itself. */
public final class Ports {
    private Ports() {}

    /** A port nobody listens on right now on 127.0.0.1. */
    public static int free() {
        return FreePorts.free();
    }
}
