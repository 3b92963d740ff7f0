/// Swift concurrency's executor hooks were set by someone else before the loop could take them (a library
/// that routes the runtime's jobs itself): two owners of one process-wide variable cannot both be right.
public struct ExecutorTakeoverError: Error, CustomStringConvertible {
    public var description: String {
        "Swift concurrency's global executor hooks are already set by another part of the process; ridegate's event loop leaves them alone and does not start"
    }
}
