/*
 * ARGoS side of benchmarks/side_by_side.py: the same workload as benchmarks/epuck2_sensors.py.
 *
 * Controller "sensor_bench": every tick each E-Puck2 reads every sensor declared in the .argos
 * file (proximity, light, ToF, ground, encoders, colored-blob perspective camera), folds the
 * readings into one integer checksum, and drives the wheels at +v / -v cm/s (a spin on the spot;
 * <params velocity="..."/>, default 7.5). The checksum is printed when the last controller is
 * destroyed, so the reads cannot be optimised away and two runs can be compared bit for bit.
 *
 * Loop functions "uniform_floor": a floor of one grey level (<floor grey="0..255"/>), because the
 * ground sensor needs a floor and this ARGoS build may lack FreeImage for an image floor.
 */
#include <argos3/core/control_interface/ci_controller.h>
#include <argos3/core/simulator/loop_functions.h>
#include <argos3/core/utility/configuration/argos_configuration.h>
#include <argos3/plugins/robots/generic/control_interface/ci_differential_steering_actuator.h>
#include <argos3/plugins/robots/generic/control_interface/ci_colored_blob_perspective_camera_sensor.h>
#include <argos3/plugins/robots/e-puck2/control_interface/ci_epuck2_proximity_sensor.h>
#include <argos3/plugins/robots/e-puck2/control_interface/ci_epuck2_light_sensor.h>
#include <argos3/plugins/robots/e-puck2/control_interface/ci_epuck2_tof_sensor.h>
#include <argos3/plugins/robots/e-puck2/control_interface/ci_epuck2_ground_sensor.h>
#include <argos3/plugins/robots/e-puck2/control_interface/ci_epuck2_encoder_sensor.h>
#include <cstdint>
#include <cstdio>

using namespace argos;

namespace {

/* One accumulator for the whole swarm: the run uses one thread (<system threads="0"/>). */
struct SSwarmChecksum {
   std::int64_t Sum = 0;
   std::uint64_t Reads = 0;   // sensor reads (one per sensor per robot per tick)
   std::uint64_t Blobs = 0;   // camera blobs seen, summed over every read
   unsigned Live = 0;         // controllers not yet destroyed

   void Print() const {
      std::fprintf(stderr, "SENSOR_BENCH checksum=%lld reads=%llu blobs=%llu\n",
                   static_cast<long long>(Sum), static_cast<unsigned long long>(Reads),
                   static_cast<unsigned long long>(Blobs));
   }
};

SSwarmChecksum g_sChecksum;

}

class CSensorBench : public CCI_Controller {

public:

   void Init(TConfigurationNode& t_node) override {
      m_pcWheels = GetActuator<CCI_DifferentialSteeringActuator>("differential_steering");
      m_pcProximity = Optional<CCI_EPuck2ProximitySensor>("epuck2_proximity");
      m_pcLight = Optional<CCI_EPuck2LightSensor>("epuck2_light");
      m_pcToF = Optional<CCI_EPuck2TOFSensor>("epuck2_tof");
      m_pcGround = Optional<CCI_Epuck2GroundSensor>("epuck2_ground");
      m_pcEncoder = Optional<CCI_EPuck2EncoderSensor>("epuck2_encoder");
      m_pcCamera = Optional<CCI_ColoredBlobPerspectiveCameraSensor>(
         "epuck2_colored_blob_perspective_camera");
      /* the plug-in's camera starts disabled */
      if(m_pcCamera != nullptr) m_pcCamera->Enable();
      GetNodeAttributeOrDefault(t_node, "velocity", m_fVelocity, m_fVelocity);
      ++g_sChecksum.Live;
   }

   void ControlStep() override {
      if(m_pcProximity != nullptr) {
         for(const auto& s : m_pcProximity->GetReadings()) g_sChecksum.Sum += s.Value;
         ++g_sChecksum.Reads;
      }
      if(m_pcLight != nullptr) {
         for(const auto& s : m_pcLight->GetReadings()) g_sChecksum.Sum += s.Value;
         ++g_sChecksum.Reads;
      }
      if(m_pcToF != nullptr) {
         g_sChecksum.Sum += m_pcToF->GetReading();
         ++g_sChecksum.Reads;
      }
      if(m_pcGround != nullptr) {
         for(SInt32 n : m_pcGround->GetReadings()) g_sChecksum.Sum += n;
         ++g_sChecksum.Reads;
      }
      if(m_pcEncoder != nullptr) {
         const CCI_EPuck2EncoderSensor::SReading s = m_pcEncoder->GetReadings();
         g_sChecksum.Sum += s.EncoderLeftWheel + s.EncoderRightWheel;
         ++g_sChecksum.Reads;
      }
      if(m_pcCamera != nullptr) {
         for(const auto* b : m_pcCamera->GetReadings().BlobList) {
            /* position and colour both count, so a blob moved or recoloured changes the sum */
            g_sChecksum.Sum += b->X + b->Y + b->Color.GetRed() + b->Color.GetGreen() + b->Color.GetBlue();
            ++g_sChecksum.Blobs;
         }
         ++g_sChecksum.Reads;
      }
      m_pcWheels->SetLinearVelocity(m_fVelocity, -m_fVelocity);
   }

   void Destroy() override {
      if(--g_sChecksum.Live == 0) g_sChecksum.Print();
   }

private:

   /* A sensor the .argos file did not declare is skipped rather than an error. */
   template<class T> T* Optional(const std::string& str_name) {
      return HasSensor(str_name) ? GetSensor<T>(str_name) : nullptr;
   }

   CCI_DifferentialSteeringActuator* m_pcWheels = nullptr;
   CCI_EPuck2ProximitySensor* m_pcProximity = nullptr;
   CCI_EPuck2LightSensor* m_pcLight = nullptr;
   CCI_EPuck2TOFSensor* m_pcToF = nullptr;
   CCI_Epuck2GroundSensor* m_pcGround = nullptr;
   CCI_EPuck2EncoderSensor* m_pcEncoder = nullptr;
   CCI_ColoredBlobPerspectiveCameraSensor* m_pcCamera = nullptr;
   Real m_fVelocity = 7.5;   // cm/s, ARGoS's unit for wheel speeds
};

REGISTER_CONTROLLER(CSensorBench, "sensor_bench")

class CUniformFloor : public CLoopFunctions {

public:

   void Init(TConfigurationNode& t_tree) override {
      UInt32 unGrey = 128;
      if(NodeExists(t_tree, "floor")) GetNodeAttributeOrDefault(GetNode(t_tree, "floor"), "grey", unGrey, unGrey);
      if(unGrey > 255) THROW_ARGOSEXCEPTION("floor grey must be 0..255, got " << unGrey);
      m_cColor = CColor(unGrey, unGrey, unGrey);
   }

   CColor GetFloorColor(const CVector2&) override {
      return m_cColor;
   }

private:

   CColor m_cColor = CColor(128, 128, 128);
};

REGISTER_LOOP_FUNCTIONS(CUniformFloor, "uniform_floor")
