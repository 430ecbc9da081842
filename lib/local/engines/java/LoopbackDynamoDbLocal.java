/*
 * Starts DynamoDB Local as its own main class does, but binds its Jetty connector to one address (loopback)
 * instead of every interface: DynamoDB Local has no option for it. Reflection only, so it compiles without
 * the jar on the class path and survives the jar's package rename. Usage:
 *   java -Dloopback.host=127.0.0.1 -cp <this dir>:DynamoDBLocal.jar LoopbackDynamoDbLocal <DynamoDB Local options>
 * With -Dloopback.exitWithStdin=true it exits when its standard input closes: the local runtime gives it a
 * pipe it never writes to, so DynamoDB Local dies with the runtime however that ends (SIGKILL included).
 */
import java.io.IOException;
import java.lang.reflect.Field;

public final class LoopbackDynamoDbLocal {
  private static final String[] RUNNERS = {
    "software.amazon.dynamodb.services.local.main.ServerRunner",
    "com.amazonaws.services.dynamodbv2.local.main.ServerRunner",
  };

  public static void main(String[] args) throws Exception {
    if (Boolean.getBoolean("loopback.exitWithStdin")) exitWithStdin();
    String host = System.getProperty("loopback.host", "127.0.0.1");
    Object proxy = runner().getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object jetty = field.get(proxy);
    Object[] connectors = (Object[]) jetty.getClass().getMethod("getConnectors").invoke(jetty);
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Object connector : connectors) connector.getClass().getMethod("setHost", String.class).invoke(connector, host);
    proxy.getClass().getMethod("start").invoke(proxy);
  }

  /** A daemon thread that reads standard input to its end, then ends the process. */
  private static void exitWithStdin() {
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // nothing is ever written; only the end matters
        }
      } catch (IOException e) {
        // a broken pipe is an end too
      }
      System.exit(0);
    }, "exit-with-stdin");
    watcher.setDaemon(true);
    watcher.start();
  }

  private static Class<?> runner() throws ClassNotFoundException {
    for (String name : RUNNERS) {
      try {
        return Class.forName(name);
      } catch (ClassNotFoundException e) {
        // an older or newer jar: try the next name
      }
    }
    throw new ClassNotFoundException("DynamoDB Local's ServerRunner");
  }
}
