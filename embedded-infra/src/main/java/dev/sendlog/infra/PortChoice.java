package dev.sendlog.infra;

/** Which port a server we start should listen on. */
record PortChoice(int port, boolean fallBackToFree) {
    static final PortChoice ANY = new PortChoice(0, true);

    static PortChoice exactly(int port) {
        return new PortChoice(port, false);
    }

    static PortChoice preferring(int port) {
        return new PortChoice(port, true);
    }

    /** Whether a retry may pick a different port. */
    boolean mayChange() {
        return fallBackToFree;
    }

    int resolve() {
        if (port == 0) {
            return FreePorts.free();
        }
        if (fallBackToFree && !FreePorts.isFree(port)) {
            return FreePorts.free();
        }
        return port;
    }
}
