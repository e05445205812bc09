// expect: trait=pass default=pass
// The types Apple's SDK declares `Sendable` stay `Sendable` under the trait.
import Foundation
import Sluice
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct AppleSendable: Sendable {
    let demand: Subscribers.Demand
    let finished: Subscribers.Completion<Never>
    let failed: Subscribers.Completion<URLError>
    let dispatchTime: DispatchQueue.SchedulerTimeType
    let dispatchStride: DispatchQueue.SchedulerTimeType.Stride
    let runLoopTime: RunLoop.SchedulerTimeType
    let runLoopStride: RunLoop.SchedulerTimeType.Stride
    let operationQueueTime: OperationQueue.SchedulerTimeType
    let operationQueueStride: OperationQueue.SchedulerTimeType.Stride
    let immediateTime: ImmediateScheduler.SchedulerTimeType
    let immediateStride: ImmediateScheduler.SchedulerTimeType.Stride
    let dataTask: URLSession.DataTaskPublisher
}

actor Keeper {
    var kept: [AppleSendable] = []
    func keep(_ value: AppleSendable) { kept.append(value) }
}

func probe() async {
    let value = AppleSendable(
        demand: .max(1), finished: .finished, failed: .failure(URLError(.badURL)),
        dispatchTime: DispatchQueue.main.now, dispatchStride: .seconds(1),
        runLoopTime: RunLoop.main.now, runLoopStride: .seconds(1),
        operationQueueTime: OperationQueue.main.now, operationQueueStride: .seconds(1),
        immediateTime: ImmediateScheduler.shared.now, immediateStride: .seconds(1),
        dataTask: URLSession.shared.dataTaskPublisher(for: URL(string: "http://127.0.0.1/")!))
    let send: @Sendable () -> Subscribers.Demand = { value.demand }
    await Keeper().keep(value)
    _ = send()
}

await probe()
